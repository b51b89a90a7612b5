/** The URL of a registered site: how it is written, and what makes two URLs the same site. */
import { ValidationError } from '../errors';

export const MAX_SITE_URL_LENGTH = 2000;
/**
 * The normalised URL (UTF-8 bytes) becomes part of a DynamoDB sort key (`url#<identity>`,
 * at most 1,024 bytes), so it is held well below that.
 */
export const MAX_NORMALIZED_URL_BYTES = 900;

const utf8 = new TextEncoder();

export interface SiteUrl {
  /** `scheme://host[:port][/path]`, lowercase host, no trailing slash, no query or fragment. */
  url: string;
  /** The same without the scheme: http and https of one address are one site. */
  identity: string;
}

/**
 * Normalises a site URL given by a client. Requires http or https; refuses credentials,
 * a query string and a fragment; lowercases the host, drops a default port, a trailing dot of
 * the host and trailing slashes; decodes percent-encoded unreserved characters (`%64` is `d`)
 * and writes other escapes in upper case (RFC 3986, 6.2.2); refuses a result longer than
 * MAX_NORMALIZED_URL_BYTES.
 */
export function normalizeSiteUrl(input: string): SiteUrl {
  const text = input.trim();
  const invalid = (message: string) => ValidationError.forField('url', message);
  if (!/^https?:\/\//i.test(text)) {
    throw invalid('The url must be a full address starting with http:// or https://.');
  }
  if (text.length > MAX_SITE_URL_LENGTH) {
    throw invalid(`The url may not be longer than ${MAX_SITE_URL_LENGTH} characters.`);
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw invalid('The url is not a valid address.');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw invalid('The url may not contain a user name or password; send them as login and password.');
  }
  if (parsed.search !== '' || text.includes('?')) throw invalid('The url may not contain a query string.');
  if (parsed.hash !== '' || text.includes('#')) throw invalid('The url may not contain a fragment (#).');
  const host = parsed.hostname.replace(/\.$/, '');
  if (host === '') throw invalid('The url must name a host.');
  const port = parsed.port === '' ? '' : `:${parsed.port}`;
  const path = parsed.pathname.replace(/%[0-9a-f]{2}/gi, normalEscape).replace(/\/+$/, '');
  const identity = `${host}${port}${path}`;
  const url = `${parsed.protocol}//${identity}`;
  if (utf8.encode(url).length > MAX_NORMALIZED_URL_BYTES) {
    throw invalid(
      `The url may not be longer than ${MAX_NORMALIZED_URL_BYTES} characters once normalised (a character outside ASCII counts as several).`,
    );
  }
  return { url, identity };
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** A percent escape as RFC 3986 normalises it: an unreserved character as itself, others upper case. */
function normalEscape(percentEscape: string): string {
  const character = String.fromCharCode(Number.parseInt(percentEscape.slice(1), 16));
  return UNRESERVED.test(character) ? character : percentEscape.toUpperCase();
}

/** The identity of an already normalised URL. */
export function siteUrlIdentity(url: string): string {
  return url.replace(/^https?:\/\//i, '');
}

/**
 * The normalised URL of a site a client registers (or checks): https is required unless
 * `allowPlainHttp` (local mode), since every call to the site carries its password.
 */
export function registrableSiteUrl(input: string, allowPlainHttp: boolean): string {
  const { url } = normalizeSiteUrl(input);
  if (!allowPlainHttp && url.startsWith('http:')) {
    throw ValidationError.forField(
      'url',
      'The url must use https:// (plain http would send the site password unencrypted).',
    );
  }
  return url;
}
