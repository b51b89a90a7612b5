/**
 * Model output on its way to a site: well-formed text, an allow-list of tags and attributes,
 * and WordPress shortcodes neutralised, so that nothing a model writes runs on the site.
 * WordPress runs `[name ...]` in post content; `&#91;` is shown as `[` but never starts one.
 */
import type sanitize from 'sanitize-html';
import { escapeHtml, wellFormedText } from './text';

/** Escaped HTML text with every `[` as `&#91;`, so that no shortcode can start in it. */
export function neutraliseShortcodes(escapedText: string): string {
  return escapedText.replace(/\[/g, '&#91;');
}

/** Plain text as HTML character data: escaped, shortcodes neutralised. */
export function textToHtml(text: string): string {
  return neutraliseShortcodes(escapeHtml(text));
}

/**
 * Characters of a URL that mean something to the HTML or WordPress around it, percent-encoded:
 * the same URL to a browser, but no shortcode (`[`), no comment or tag (`<!--` inside an
 * attribute splits the tag in WordPress's kses) and no attribute end (quotes, spaces).
 */
const URL_UNSAFE = /[[\]<>"'`\s]/gu;
function encodeUnsafeUrlCharacters(url: string): string {
  // First what a browser's URL parser drops: spaces at the ends, tabs and line breaks inside (other
  // control characters are gone already: `wellFormedText`).
  const asParsed = url.trim().replace(/[\t\n\r]/g, '');
  return asParsed.replace(URL_UNSAFE, (character) =>
    character === "'" ? '%27' : encodeURIComponent(character),
  );
}

/**
 * Tags allowed in a part the model writes. H2 are ours alone (the article's structure), so the
 * model's H1/H2 become H3; links keep only an http(s) or relative `href`.
 */
function articleAllowList(needBold: boolean): sanitize.IOptions {
  return {
    allowedTags: ['h3', 'p', 'ul', 'ol', 'li', 'em', 'blockquote', 'a', ...(needBold ? ['strong'] : [])],
    allowedAttributes: { a: ['href'] },
    // No style attribute is ever kept, so sanitize-html never needs postcss (not bundled).
    parseStyleAttributes: false,
    allowedSchemes: ['http', 'https'],
    allowedSchemesAppliedToAttributes: ['href'],
    allowProtocolRelative: false,
    transformTags: {
      h2: 'h3',
      h1: 'h3',
      // Without bold, `b` is left out like `strong`: its text stays, the tag goes. (Turning it
      // into a tag that is not allowed made sanitize-html leave a stray closing tag.)
      ...(needBold ? { b: 'strong' } : {}),
      a: (tagName, attribs) => ({
        tagName,
        attribs:
          attribs.href === undefined
            ? attribs
            : { ...attribs, href: encodeUnsafeUrlCharacters(attribs.href) },
      }),
    },
    nonTextTags: ['style', 'script', 'textarea', 'option', 'noscript', 'template', 'iframe', 'xmp'],
    textFilter: neutraliseShortcodes,
  };
}

let sanitizer: typeof sanitize | undefined;
/**
 * sanitize-html, loaded on first use (see `setUpArticleToolsMeanwhile` in
 * core/articles/write-article.ts): require() keeps it out of a bundle's init.
 */
export function htmlSanitizer(): typeof sanitize {
  sanitizer ??= require('sanitize-html') as typeof sanitize;
  return sanitizer;
}

/** HTML written by a model, reduced to the article allow-list with shortcodes neutralised. */
export function sanitizeArticleHtml(html: string, options: { needBold: boolean }): string {
  const withLineBreaksAsSpaces = wellFormedText(html).replace(LINE_BREAK, ' ');
  return htmlSanitizer()(withLineBreaksAsSpaces, articleAllowList(options.needBold)).trim();
}

/** `br` is not on the allow-list; the words it separated stay separate. */
const LINE_BREAK = /<br\b[^>]*>/gi;
