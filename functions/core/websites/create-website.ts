/**
 * `POST /v1/websites/create`: verifies the site through the plugin before storing anything,
 * then stores the website (password encrypted, bound to it), its URL guard and its categories.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { ValidationError } from '../errors';
import { formText, parseOrThrow } from '../schema-helpers';
import { siteTimeZone } from '../time-zones';
import { toCategories } from './categories';
import { type CmsClient, CmsError, type SiteAccess } from './cms-client';
import { type SiteCheck, withDiagnosis } from './diagnose-connection';
import { type LoginAttemptStore, withLoginAttempt } from './login-failures';
import { PASSWORD_CONTEXT_VERSION, type PasswordCipher } from './password-cipher';
import {
  type CategoryStore,
  type ConnectionProbes,
  DuplicateWebsiteUrlError,
  type WebsiteStore,
} from './ports';
import { registrationError } from './site-failures';
import { normalizeSiteUrl, registrableSiteUrl, siteUrlIdentity } from './site-url';
import { presentWebsite, type Website } from './website';
import { fitsHttpBasic } from './wordpress-login';

export interface WebsiteDeps {
  websites: WebsiteStore;
  categories: CategoryStore;
  cipher: PasswordCipher;
  cms: CmsClient;
  /**
   * Accept `http://` site URLs (local mode only). Otherwise https is required, since every
   * call to the site carries its password.
   */
  allowPlainHttp?: boolean;
  /** The connection doctor's probes: a failed site check then lists its `problems`. */
  probes?: ConnectionProbes;
  /** Caps the failed logins registrations and updates cause (login-failures.ts). */
  loginFailures: LoginAttemptStore;
  now?: () => Date;
  /** Builds the new website's site index and answers its record with the index fields (site-index.ts). */
  registerIndex?: (
    website: Website,
    site: SiteAccess,
    requestStartedAt: Date,
  ) => Promise<ReturnType<typeof presentWebsite>>;
}

/**
 * What two registrations under one Idempotency-Key must share to be the same request: the URL as
 * it is stored (`http://H/x/` is `http://h/x`; as sent when invalid, which registration refuses)
 * and the login. The password stays out: it is kept nowhere unencrypted, not even hashed.
 */
export function registrationFingerprint(input: { url: string; login: string }): {
  url: string;
  login: string;
} {
  let url = input.url;
  try {
    url = normalizeSiteUrl(input.url).url;
  } catch {
    // invalid: compared as sent
  }
  return { url, login: input.login };
}

/** WordPress user logins are at most 60 characters. */
const MAX_LOGIN_LENGTH = 60;
const MAX_PASSWORD_LENGTH = 1000;

export const createWebsiteSchema = z.object({
  url: formText('url').check(z.trim(), z.minLength(1, { error: 'The url field is required.' })),
  login: formText('login').check(
    z.trim(),
    z.minLength(1, { error: 'The login field is required.' }),
    z.maxLength(MAX_LOGIN_LENGTH, {
      error: `The login may not be longer than ${MAX_LOGIN_LENGTH} characters.`,
    }),
    // HTTP Basic ends the login at its first colon: the site would check another login.
    z.refine(fitsHttpBasic, { error: 'The login may not contain a colon (:).' }),
  ),
  // Passwords are taken as given: spaces may be part of them (control characters may not).
  password: formText('password').check(
    z.minLength(1, { error: 'The password field is required.' }),
    z.maxLength(MAX_PASSWORD_LENGTH, {
      error: `The password may not be longer than ${MAX_PASSWORD_LENGTH} characters.`,
    }),
  ),
});

const duplicateUrl = () =>
  ValidationError.forField('url', 'This website is already registered in your account.');

export async function createWebsite(deps: WebsiteDeps, accountId: string, fields: Record<string, unknown>) {
  const startedAt = deps.now?.() ?? new Date();
  const input = parseOrThrow(createWebsiteSchema, fields);
  const url = registrableSiteUrl(input.url, deps.allowPlainHttp === true);
  const identity = siteUrlIdentity(url);
  if (await deps.websites.isUrlRegistered(accountId, identity)) throw duplicateUrl();

  const site: SiteAccess = { url, login: input.login, password: input.password };
  const fromSite = await withDiagnosis(deps, site, (check) => verifyLogin(deps, accountId, site, check));

  const websiteUuid = randomUUID();
  const passwordCiphertext = await deps.cipher.encrypt(input.password, { accountId, websiteUuid, url });
  const categories = toCategories(websiteUuid, fromSite.categories);
  const website: Website = {
    accountId,
    websiteUuid,
    url,
    login: input.login,
    passwordCiphertext,
    passwordContextVersion: PASSWORD_CONTEXT_VERSION,
    loginIsUnauthorized: false,
    isUnreachable: false,
    totalCreditsUsed: 0,
    articlesCount: 0,
    categoriesCount: categories.length,
    createdAt: (deps.now?.() ?? new Date()).toISOString(),
    timezone: siteTimeZone(fromSite.status.timezone),
  };
  website.checkedAt = website.createdAt;

  // Categories first: until the website item exists nothing can reach them.
  await deps.categories.putAll(categories);
  try {
    await deps.websites.create(website, identity);
  } catch (error) {
    await deps.categories.deleteMany(
      websiteUuid,
      categories.map((category) => category.categoryUuid),
    );
    if (error instanceof DuplicateWebsiteUrlError) throw duplicateUrl();
    throw error;
  }
  return deps.registerIndex ? deps.registerIndex(website, site, startedAt) : presentWebsite(website);
}

/** The most each of the login's two calls takes (within what the request's budget has left). */
const LOGIN_CALL_MS = 10_000;

/**
 * Logs in through the plugin (which refuses a user without the role like a wrong password) and
 * reads the categories, as one reserved login attempt (login-failures.ts); any failure is a 422.
 * Each call gets what `check.budget` has left (at most LOGIN_CALL_MS); a refused login that
 * `check.loginNotArrived` says never reached the plugin is not counted. Returns the plugin's
 * status answer (its time zone among it) and the categories.
 */
export async function verifyLogin(
  deps: Pick<WebsiteDeps, 'cms' | 'loginFailures' | 'now'>,
  accountId: string,
  site: SiteAccess,
  check: Partial<SiteCheck> = {},
) {
  const now = deps.now?.() ?? new Date();
  const { budget, loginNotArrived } = check;
  const call = () => (budget ? { timeoutMs: budget.next(LOGIN_CALL_MS) } : undefined);
  const notCounted = async (error: unknown) =>
    error instanceof CmsError && error.reason === 'unauthorized' && loginNotArrived !== undefined
      ? loginNotArrived()
      : false;
  try {
    return await withLoginAttempt(
      deps.loginFailures,
      { accountId, siteUrl: site.url, login: site.login, now },
      async () => {
        const status = await deps.cms.status(site, call());
        return { status, categories: await deps.cms.categories(site, call()) };
      },
      notCounted,
    );
  } catch (error) {
    // The site's answer stays with the 422, for the connection doctor to read.
    if (error instanceof CmsError) throw Object.assign(registrationError(error), { cause: error });
    throw error;
  }
}
