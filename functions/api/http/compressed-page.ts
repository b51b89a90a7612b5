/**
 * A large page served as browsers expect from a static file: compressed (Brotli or gzip, as the
 * request's Accept-Encoding prefers), with an ETag, and a 304 without a body when the browser
 * already holds it (If-None-Match). Each compressed form is made once per process and page.
 *
 * API Gateway hands a base64 body on as bytes only to requests whose first Accept type is one of
 * the API's binaryMediaTypes (`text/html` is: runtime-settings.ts); any other request gets the
 * page uncompressed, so that no client ever receives base64 text.
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { runtimeSettings } from '../../shared/runtime-settings';
import type { ApiResult } from './responses';

export type ContentEncoding = 'br' | 'gzip';

interface PageForms {
  tag: string;
  encoded: Partial<Record<ContentEncoding, Buffer>>;
}

/** By page text: the docs page differs by base URL only, so a process holds one or two. */
const forms = new Map<string, PageForms>();
const MAX_PAGES = 4;

function formsOf(html: string): PageForms {
  let found = forms.get(html);
  if (!found) {
    if (forms.size >= MAX_PAGES) forms.clear();
    found = { tag: createHash('sha256').update(html).digest('base64url').slice(0, 27), encoded: {} };
    forms.set(html, found);
  }
  return found;
}

function compress(html: string, encoding: ContentEncoding): Buffer {
  const bytes = Buffer.from(html, 'utf8');
  return encoding === 'br'
    ? // Quality 5: within 10% of the smallest output at a fraction of the time of 11.
      brotliCompressSync(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 5,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      })
    : gzipSync(bytes, { level: 6 });
}

/** The encoding to send for an Accept-Encoding header: Brotli, else gzip, else none (q=0 refuses). */
export function chooseEncoding(acceptEncoding: string | undefined): ContentEncoding | undefined {
  const weights = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((param) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value);
    weights.set(name, q === undefined ? 1 : Number(q));
  }
  const weight = (name: ContentEncoding) => weights.get(name) ?? (weights.get('*') || 0);
  const best = (['br', 'gzip'] as const).filter((name) => weight(name) > 0);
  return best.sort((a, b) => weight(b) - weight(a))[0];
}

/** Whether API Gateway turns a base64 body into bytes for a request with this Accept header. */
export function receivesBinary(accept: string | undefined): boolean {
  const first = accept?.split(',')[0]?.split(';')[0]?.trim().toLowerCase();
  return first !== undefined && (runtimeSettings.binaryMediaTypes as readonly string[]).includes(first);
}

/** True when an If-None-Match header names this page (in any encoding, weak or strong). */
function alreadyHeld(ifNoneMatch: string | undefined, tag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((given) => {
    const value = given.trim().replace(/^W\//, '');
    return value === '*' || value === `"${tag}"` || value === `"${tag}-br"` || value === `"${tag}-gzip"`;
  });
}

/**
 * The page for a request with these headers (names in lower case): 304 when its If-None-Match
 * holds this page, else the page compressed as the request allows.
 */
export function compressedPage(
  headers: Record<string, string>,
  html: string,
  options: { cacheSeconds: number; contentSecurityPolicy: string },
): ApiResult {
  const page = formsOf(html);
  const encoding = receivesBinary(headers.accept) ? chooseEncoding(headers['accept-encoding']) : undefined;
  const etag = `"${page.tag}${encoding ? `-${encoding}` : ''}"`;
  if (alreadyHeld(headers['if-none-match'], page.tag)) {
    return { statusCode: 304, body: '', html: { ...options, etag } };
  }
  if (!encoding) return { statusCode: 200, body: html, html: { ...options, etag } };
  page.encoded[encoding] ??= compress(html, encoding);
  return {
    statusCode: 200,
    body: page.encoded[encoding],
    html: { ...options, etag, contentEncoding: encoding },
  };
}
