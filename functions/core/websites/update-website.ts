/**
 * `PUT /v1/websites/<uuid>/update`: new credentials for a registered site (its password changed
 * on WordPress). They are verified through the plugin before anything is stored; then the
 * password is encrypted again (bound to the website and its URL), the flags cleared, the categories
 * and the site's time zone refreshed, and the website's pending publications made due so the next sweep publishes them.
 */
import * as z from 'zod/mini';
import { PUBLISH_GRACE_MS } from '../articles/lifecycle-policy';
import { NotFoundError, ValidationError } from '../errors';
import type { PublicationSweeps } from '../publishing/ports';
import { parseOrThrow } from '../schema-helpers';
import { siteTimeZone } from '../time-zones';
import { syncCategories } from './categories';
import { createWebsiteSchema, verifyLogin, type WebsiteDeps } from './create-website';
import { withDiagnosis } from './diagnose-connection';
import { PASSWORD_CONTEXT_VERSION } from './password-cipher';
import type { SiteIndexStore } from './ports';
import { findWebsite } from './read-websites';
import { removeAllCategories } from './remove-categories';
import { HEALTHY } from './site-failures';
import { presentIndexedWebsite } from './site-index';
import { normalizeSiteUrl } from './site-url';

export interface UpdateWebsiteDeps
  extends Pick<
    WebsiteDeps,
    'websites' | 'categories' | 'cipher' | 'cms' | 'loginFailures' | 'now' | 'probes' | 'allowPlainHttp'
  > {
  publications: Pick<PublicationSweeps, 'makeDueForWebsite'>;
  /** The answer is the website as show presents it, index fields included. */
  siteIndex: Pick<SiteIndexStore, 'getState'>;
}

export const updateWebsiteSchema = z.pick(createWebsiteSchema, { login: true, password: true });

export async function updateWebsite(
  deps: UpdateWebsiteDeps,
  accountId: string,
  websiteUuid: string | undefined,
  fields: Record<string, unknown>,
) {
  const website = await findWebsite(deps.websites, accountId, websiteUuid);
  // Said, not ignored: a client that sends a new address must not believe it was taken. Blank
  // (like any empty optional field) or the website's own address changes nothing.
  if (!isBlank(fields.url) && !isAddressOf(website.url, fields.url)) {
    throw ValidationError.forField(
      'url',
      'The url of a website cannot be changed; register the new address as a new website.',
    );
  }
  const input = parseOrThrow(updateWebsiteSchema, fields);
  const site = { url: website.url, login: input.login, password: input.password };
  const fromSite = await withDiagnosis(deps, site, (check) => verifyLogin(deps, accountId, site, check));

  const passwordCiphertext = await deps.cipher.encrypt(input.password, {
    accountId,
    websiteUuid: website.websiteUuid,
    url: website.url,
  });
  const now = (deps.now?.() ?? new Date()).toISOString();
  const categoriesCount = await syncCategories(deps.categories, website.websiteUuid, fromSite.categories);
  const write = await deps.websites.updateCredentials(
    accountId,
    website.websiteUuid,
    { login: input.login, passwordCiphertext, passwordContextVersion: PASSWORD_CONTEXT_VERSION },
    { ...HEALTHY, checkedAt: now, categoriesCount, timezone: siteTimeZone(fromSite.status.timezone) },
  );
  if (!write) {
    // Deleted while this ran: what was just written goes too.
    await removeAllCategories(deps.categories, website.websiteUuid);
    throw new NotFoundError('Website');
  }
  // Due once an attempt still running with the old login (20 s at most, well within
  // PUBLISH_GRACE_MS less the sweep's slack) has recorded how it went: an attempt as the new login
  // meanwhile could make a second post.
  const dueAt = new Date(Date.parse(now) + PUBLISH_GRACE_MS).toISOString();
  await deps.publications.makeDueForWebsite(accountId, website.websiteUuid, dueAt);
  return presentIndexedWebsite(write.after, await deps.siteIndex.getState(website.websiteUuid));
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function isAddressOf(siteUrl: string, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return normalizeSiteUrl(value).url === siteUrl;
  } catch {
    return false;
  }
}
