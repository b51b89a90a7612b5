/**
 * Whether a site's words repeat the credentials Inkpress sent it (a site or proxy echoing the
 * request back, or a hostile site): the WordPress client and the connection doctor keep such
 * words out of answers and logs.
 */
import { decodedText, escapeHtml } from '../text';
import type { SiteAccess } from './cms-client';

/** Shorter passwords are looked for only as part of the login pair (they occur in text by chance). */
const MIN_PASSWORD_LOOKED_FOR = 6;

/**
 * Whether a site's answer (or what we say of it) repeats the credentials: the Basic pair as the
 * Authorization header carries it, `login:password`, or a password long enough not to occur by
 * chance, as sent or escaped for HTML or JSON, in any way the answer may be read (`readings`).
 */
export function repeatsCredentials(text: string, site: SiteAccess): boolean {
  const encoded = Buffer.from(`${site.login}:${site.password}`, 'utf8').toString('base64');
  const secrets = [encoded, `${site.login}:${site.password}`];
  if (site.password.length >= MIN_PASSWORD_LOOKED_FOR) secrets.push(site.password);
  const forms = secrets.flatMap((secret) => [
    secret,
    escapeHtml(secret),
    JSON.stringify(secret).slice(1, -1),
  ]);
  return readings(text).some((reading) => forms.some((form) => reading.includes(form)));
}

const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g;
const JSON_ESCAPED: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * A site's text as sent, with JSON escapes read (PHP's `json_encode` writes `\/` and `\u00e9`),
 * as a page shows either (tags and comments dropped, entities decoded), and URL-decoded.
 */
function readings(text: string): string[] {
  const unescaped = text.replace(JSON_ESCAPE, (_escape, hex: string | undefined, character: string) =>
    hex ? String.fromCharCode(Number.parseInt(hex, 16)) : (JSON_ESCAPED[character] ?? character),
  );
  const asSent = [text, unescaped];
  return [...asSent, ...asSent.map(decodedText), ...asSent.map(urlDecoded)];
}

/** Each run of `%XX` decoded on its own (a stray `%` elsewhere must not stop it), `+` as a space. */
function urlDecoded(text: string): string {
  return text.replace(/\+/g, ' ').replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}
