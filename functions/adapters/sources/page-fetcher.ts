/**
 * Source pages fetched through the SSRF guard (at most 2 MB, 10 s, 3 redirects, each hop
 * checked) and reduced to their main text: HTML comments and hidden content (hidden elements,
 * white or zero-size text, off-screen blocks, scripts, forms) are dropped before Mozilla's
 * Readability finds the article on a light DOM (linkedom); plain text is taken as it is.
 */
import type { Readability } from '@mozilla/readability';
import type { Parser as HtmlParser } from 'htmlparser2';
import type { parseHTML } from 'linkedom';
import { type FetchedPage, type PageFetcher, SourceFetchError } from '../../core/sources/ports';
import { safeText } from '../../core/text';
import { guardedRequest, OutboundError, type OutboundPolicy } from '../wordpress/guarded-http';
import type { DestinationPolicy } from '../wordpress/ssrf-guard';

/**
 * What a page's markup may hold before it is read: Readability's work grows with the depth of
 * each element times the number of elements (1,000 nested divs took 10 s, 2,000 took 82 s, on a
 * synchronous parse that blocks everything else). Real pages nest 20-60 levels and hold a few
 * thousand elements (a long Wikipedia article about 30,000). The total of every element's depth
 * bounds that product (a real page stays under 200,000; at 500,000 extraction takes about 3 s).
 */
export const MARKUP_LIMITS = { maxDepth: 256, maxElements: 50_000, maxDepthTotal: 500_000 } as const;

export const SOURCE_LIMITS = {
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 10_000,
  maxResponseBytes: 2 * 1024 * 1024,
  maxRedirects: 3,
} as const;

const USER_AGENT = 'InkpressBot/1.0 (+source fetcher)';

export class GuardedPageFetcher implements PageFetcher {
  private readonly policy: OutboundPolicy;

  constructor(destinations: DestinationPolicy, limits: Partial<typeof SOURCE_LIMITS> = {}) {
    // Deployed (no private addresses), every hop must be https; plain http only locally and in tests.
    this.policy = { ...SOURCE_LIMITS, ...limits, ...destinations, httpsOnly: !destinations.allowPrivate };
  }

  async fetchPage(url: string): Promise<FetchedPage> {
    let response: Awaited<ReturnType<typeof guardedRequest>>;
    try {
      response = await guardedRequest(
        {
          method: 'GET',
          url,
          headers: { Accept: 'text/html,application/xhtml+xml,text/plain;q=0.9', 'User-Agent': USER_AGENT },
        },
        this.policy,
      );
    } catch (error) {
      if (error instanceof OutboundError) throw new SourceFetchError(fetchFailure(error));
      throw new SourceFetchError('The page could not be fetched.');
    }
    if (response.status >= 400) throw new SourceFetchError(`The page answered HTTP ${response.status}.`);
    if (response.status < 200 || response.status >= 300) {
      throw new SourceFetchError(`The page answered HTTP ${response.status}, not a page.`);
    }
    const contentType = String(response.headers['content-type'] ?? '').toLowerCase();
    const text = decode(response.body, contentType, !/^text\/plain\b/.test(contentType));
    if (mostlyUndecodable(text)) {
      throw new SourceFetchError('The page is not text in the charset it names: not read.');
    }
    const fallbackTitle = hostOf(url);
    if (/^text\/plain\b/.test(contentType)) {
      return { url, title: fallbackTitle, text: text.replace(/\r\n?/g, '\n') };
    }
    if (!/^(text\/html|application\/xhtml\+xml)\b/.test(contentType)) {
      throw new SourceFetchError(
        `The page is not HTML or plain text (${contentType.split(';')[0]?.trim() || 'no content type'}).`,
      );
    }
    return { url, ...mainText(text, url, fallbackTitle) };
  }
}

function fetchFailure(error: OutboundError): string {
  switch (error.failure) {
    case 'blocked':
      return `The address may not be fetched: ${error.message}.`;
    case 'timeout':
      return 'The page did not answer within 10 s.';
    case 'too_large':
      return 'The page is larger than 2 MB.';
    case 'redirects':
    case 'bad_redirect':
      return `The page redirected too often or to an unusable address: ${error.message}.`;
    default:
      return `The page could not be reached: ${error.message}.`;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The body as text, its encoding found in the WHATWG order: a byte order mark, then the
 * Content-Type's charset, then (HTML) a `<meta charset>` or `<meta http-equiv>` in the first
 * 1,024 bytes; UTF-8 when none is found or the label is unknown.
 */
function decode(body: Buffer, contentType: string, html = true): string {
  const labels = [
    byteOrderMark(body),
    /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1],
    html ? metaCharset(body) : undefined,
  ];
  for (const label of labels) {
    if (!label) continue;
    try {
      // The decoder drops a BOM of its own encoding.
      return new TextDecoder(label).decode(body);
    } catch {
      // Not an encoding TextDecoder knows: the next clue.
    }
  }
  return new TextDecoder('utf-8').decode(body);
}

/** More than a quarter of the visible characters are U+FFFD: bytes that are not in that charset. */
function mostlyUndecodable(text: string): boolean {
  const visible = text.replace(/\s+/g, '').length;
  const undecodable = text.match(/\uFFFD/g)?.length ?? 0;
  return undecodable > 16 && undecodable * 4 > visible;
}

function byteOrderMark(body: Buffer): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** The charset a `<meta>` names in the first 1,024 bytes (read as ASCII); UTF-16 there means UTF-8. */
function metaCharset(body: Buffer): string | undefined {
  const head = body.subarray(0, 1024).toString('latin1');
  for (const meta of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const label = /charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(meta)?.[1]?.toLowerCase();
    if (!label) continue;
    if (label.startsWith('utf-16')) return 'utf-8';
    return label === 'x-user-defined' ? 'windows-1252' : label;
  }
  return undefined;
}

/** Elements whose content no reader sees, or that are no text at all. */
const INVISIBLE_ELEMENTS =
  'script, style, noscript, template, iframe, object, embed, svg, canvas, form, input, textarea, select, button, [hidden], [aria-hidden="true"], .sr-only, .visually-hidden, .screen-reader-text';

/** Inline styles that hide text: not displayed, invisible, transparent, zero-size, off-screen, white. */
const HIDING_STYLE = [
  /display\s*:\s*none/i,
  /visibility\s*:\s*(hidden|collapse)/i,
  /opacity\s*:\s*0(\.0+)?\s*(;|$)/i,
  /font-size\s*:\s*0(px|em|rem|pt|%)?\s*(;|$)/i,
  /(^|;)\s*(width|height|max-height|max-width)\s*:\s*0(px)?\s*(;|$)/i,
  /text-indent\s*:\s*-\d{3,}/i,
  /(left|top|right)\s*:\s*-\d{3,}/i,
  /clip\s*:\s*rect\(\s*0/i,
  /(^|;)\s*color\s*:\s*(white|#fff\b|#ffffff\b|#fffffff?f?\b|rgba?\(\s*255\s*,\s*255\s*,\s*255|transparent|hsla?\(\s*\d+\s*,\s*\d+%\s*,\s*100%)/i,
];

/**
 * linkedom (with htmlparser2) and Readability, loaded on the first page to read rather than at a
 * cold start: most articles have no sources (test/infra/lazy-modules.test.ts).
 */
let loadedDomTools:
  | { parseHTML: typeof parseHTML; Readability: typeof Readability; Parser: typeof HtmlParser }
  | undefined;
function domTools() {
  loadedDomTools ??= {
    parseHTML: require('linkedom').parseHTML,
    Readability: require('@mozilla/readability').Readability,
    Parser: require('htmlparser2').Parser,
  };
  return loadedDomTools;
}

/**
 * Refuses markup deeper or larger than MARKUP_LIMITS, in one linear tokenizer pass (htmlparser2,
 * the parser linkedom builds its DOM with, so the depth is the DOM's), before any DOM is built.
 */
function checkMarkup(html: string, Parser: typeof HtmlParser): void {
  let depth = 0;
  let elements = 0;
  let depthTotal = 0;
  const parser = new Parser({
    onopentagname() {
      depth++;
      elements++;
      if (depth > MARKUP_LIMITS.maxDepth) {
        throw new SourceFetchError(
          `The page nests its markup more than ${MARKUP_LIMITS.maxDepth} levels deep: not read.`,
        );
      }
      if (elements > MARKUP_LIMITS.maxElements) {
        throw new SourceFetchError(
          `The page holds more than ${MARKUP_LIMITS.maxElements} elements: not read.`,
        );
      }
      depthTotal += depth;
      if (depthTotal > MARKUP_LIMITS.maxDepthTotal) {
        throw new SourceFetchError('The page nests its markup too deeply for its size: not read.');
      }
    },
    onclosetag() {
      depth--;
    },
  });
  parser.end(html);
}

/**
 * Drops comments and hidden content, then Readability's main text, paragraphs separated by blank
 * lines. Markup past MARKUP_LIMITS is a SourceFetchError (the source fails, the article does not).
 */
export function mainText(html: string, url: string, fallbackTitle: string): { title: string; text: string } {
  const { parseHTML, Readability, Parser } = domTools();
  const withoutComments = html.replace(/<!--[\s\S]*?(-->|$)/g, ' ');
  checkMarkup(withoutComments, Parser);
  const { document } = parseHTML(withoutComments);
  for (const element of [...document.querySelectorAll(INVISIBLE_ELEMENTS)]) element.remove();
  for (const element of [...document.querySelectorAll('[style]')]) {
    const style = element.getAttribute('style') ?? '';
    if (HIDING_STYLE.some((pattern) => pattern.test(style))) element.remove();
  }
  for (const element of [...document.querySelectorAll('font[color]')]) {
    if (/^(white|#fff|#ffffff)$/i.test(element.getAttribute('color') ?? '')) element.remove();
  }
  const pageTitle = document.querySelector('title')?.textContent ?? '';
  type Content = ReturnType<typeof document.querySelector>;
  let article: { title?: string | null; content?: Content } | null = null;
  try {
    // Readability reads the URL for relative links; linkedom's document has none.
    Object.defineProperty(document, 'documentURI', { value: url, configurable: true });
    // The article's element as it is (no HTML written out and parsed again).
    article = new Readability<Content>(document as unknown as ConstructorParameters<typeof Readability>[0], {
      charThreshold: 100,
      maxElemsToParse: MARKUP_LIMITS.maxElements,
      serializer: (node) => node as unknown as Content,
    }).parse();
  } catch {
    article = null;
  }
  const text = blocksText(article?.content ?? document.querySelector('body'));
  // DOM text is decoded already: made safe (no control characters, `<` as ‹), not decoded again.
  const title = safeText(article?.title ?? '') || safeText(pageTitle) || fallbackTitle;
  return { title: title.slice(0, 300).toWellFormed(), text };
}

const BLOCKS = 'p, li, blockquote, pre, h1, h2, h3, h4, h5, h6, td, th, dd, dt, figcaption';

function blocksText(root: ReturnType<ReturnType<typeof parseHTML>['document']['querySelector']>): string {
  if (!root) return '';
  const blocks = [...root.querySelectorAll(BLOCKS)]
    // A block inside another block is read with its parent.
    .filter((element) => !element.parentElement?.closest(BLOCKS))
    .map((element) => (element.textContent ?? '').replace(/\s+/g, ' ').trim())
    .filter((text) => text !== '');
  if (blocks.length > 0) return blocks.join('\n\n');
  return (root.textContent ?? '').replace(/\s+/g, ' ').trim();
}
