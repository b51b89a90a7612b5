/**
 * One check of a registered site through the plugin — log in, check the role, read the
 * categories and keep them, and keep the site's time zone — used by the sweeper's hourly health check and by
 * `POST /v1/websites/<uuid>/categories/refresh`. The website's flags are recorded either way.
 */
import { NotFoundError, SiteCallError } from '../errors';
import { siteTimeZone } from '../time-zones';
import { syncCategories } from './categories';
import { type CmsClient, CmsError } from './cms-client';
import type { PasswordCipher } from './password-cipher';
import type { CategoryStore, WebsiteStore } from './ports';
import { findWebsite } from './read-websites';
import { removeAllCategories } from './remove-categories';
import { siteAccessOf } from './site-access';
import { HEALTHY, healthAfterFailure } from './site-failures';
import { presentWebsite, type Website } from './website';

export interface SiteCheckDeps {
  websites: WebsiteStore;
  categories: CategoryStore;
  cipher: PasswordCipher;
  cms: CmsClient;
}

/**
 * Checks the site and refreshes its categories; returns how many it has now, or `gone` when the
 * website was deleted while the check ran. Categories are written only while the website exists:
 * it is looked up again before and after the write, and a website deleted meanwhile loses what
 * was written (its delete removes the website first, then its categories, so one of the two
 * sides always sees the other). A failed call records the flags it implies and throws its
 * CmsError; any other error records the check time and is thrown.
 */
export async function checkSite(
  deps: SiteCheckDeps,
  website: Website,
  now: Date,
): Promise<{ categoriesCount: number } | 'gone'> {
  const checkedAt = now.toISOString();
  let loggedIn = false;
  try {
    const site = await siteAccessOf(deps, website);
    const status = await deps.cms.status(site);
    loggedIn = true;
    const fromSite = await deps.cms.categories(site);
    const exists = async () =>
      (await deps.websites.get(website.accountId, website.websiteUuid)) !== undefined;
    if (!(await exists())) return 'gone';
    const categoriesCount = await syncCategories(deps.categories, website.websiteUuid, fromSite);
    if (!(await exists())) {
      await removeAllCategories(deps.categories, website.websiteUuid);
      return 'gone';
    }
    await deps.websites.recordHealth(website.accountId, website.websiteUuid, {
      ...HEALTHY,
      checkedAt,
      categoriesCount,
      timezone: siteTimeZone(status.timezone),
    });
    return { categoriesCount };
  } catch (error) {
    const refused = error instanceof CmsError && error.reason === 'unauthorized';
    const health = {
      // The login worked (the status call): unless a later call was refused, the flag is stale.
      ...(loggedIn && !refused ? { loginIsUnauthorized: false } : {}),
      ...(error instanceof CmsError ? healthAfterFailure(error) : {}),
    };
    await deps.websites.recordHealth(website.accountId, website.websiteUuid, { ...health, checkedAt });
    throw error;
  }
}

/**
 * `POST /v1/websites/<uuid>/categories/refresh`: the categories as the site has them now, and
 * the website record with the new `categories_count`. A site that fails is flagged like on any
 * other call, and the client gets a SiteCallError saying what failed; a website whose login is
 * flagged as refused is not called.
 */
export async function refreshCategories(
  deps: SiteCheckDeps & { now?: () => Date },
  accountId: string,
  websiteUuid: string | undefined,
) {
  const website = await findWebsite(deps.websites, accountId, websiteUuid);
  // A login the site refused is not sent again, as publishing does not send it: the plugin pauses
  // a login after 5 refusals in 15 minutes, for every caller (the hourly check still tries it).
  if (website.loginIsUnauthorized) {
    throw new SiteCallError(
      'login_refused',
      'The site refused the stored login (login_is_unauthorized is set), so Inkpress does not send it again: repeated refusals would make the site pause this login for every caller. Give the user the Inkpress Editor role or set its password on the site, then send the credentials with PUT /v1/websites/{website_uuid}/update (the hourly health check also logs in again).',
    );
  }
  let checked: Awaited<ReturnType<typeof checkSite>>;
  try {
    checked = await checkSite(deps, website, deps.now?.() ?? new Date());
  } catch (error) {
    if (error instanceof CmsError) throw siteCallError(error);
    throw error;
  }
  const refreshed = checked === 'gone' ? undefined : await deps.websites.get(accountId, website.websiteUuid);
  if (!refreshed) throw new NotFoundError('Website');
  return presentWebsite(refreshed);
}

function siteCallError(error: CmsError): SiteCallError {
  switch (error.reason) {
    case 'unauthorized':
      return new SiteCallError(
        'login_refused',
        'The site refused the stored login (login_is_unauthorized is set): give the user the Inkpress Editor role, or send new credentials with PUT /v1/websites/{website_uuid}/update.',
      );
    case 'plugin_error':
      return new SiteCallError(
        'unavailable',
        `The Inkpress Connector plugin on the site answered with an error (${error.message}); try again later.`,
      );
    case 'plugin_missing':
      return new SiteCallError(
        'unavailable',
        'The Inkpress Connector plugin was not found on the site (is_unreachable is set): install and activate it, then try again.',
      );
    case 'invalid_request':
      return new SiteCallError(
        'unavailable',
        `The Inkpress Connector plugin rejected the request (${error.message}); try again later.`,
      );
    case 'throttled':
      return new SiteCallError(
        'unavailable',
        'The site has paused logins for this user after repeated failures; try again later.',
      );
    case 'blocked':
    case 'unreachable':
      return new SiteCallError(
        'unavailable',
        `The site could not be reached (${error.message}); is_unreachable is set. Try again later.`,
      );
  }
}
