/**
 * Plain text. What clients, models and sites send may hold markup and entities; a plain-text
 * field (keyword, title, heading, category name) keeps only its text, decoded exactly once, and
 * can never turn into markup wherever it is shown: it is escaped where it becomes HTML
 * (`escapeHtml`), and holds no `<` or `>` for the places that show a title as HTML unescaped.
 */
import type { Parser as HtmlParser } from 'htmlparser2';
import { CONTROL_EXCEPT_LINE_BREAKS } from './control-characters';

/** Elements whose content is not text a reader sees (sanitize-html's `nonTextTags` and kin). */
const HIDDEN_CONTENT = new Set([
  'script',
  'style',
  'textarea',
  'option',
  'noscript',
  'template',
  'iframe',
  'noembed',
  'noframes',
  'xmp',
]);

const EVERY_CONTROL_EXCEPT_LINE_BREAKS = new RegExp(CONTROL_EXCEPT_LINE_BREAKS, 'gu');

/** Only `<` and `&` start markup or an entity: text without them is its own plain text. */
const MARKUP_OR_ENTITY = /[<&]/;

/**
 * The text of an HTML fragment: parsed once (tags and comments dropped, the content of
 * script-like elements dropped, entities decoded once), then made safe with `safeText`.
 * Text holding neither `<` nor `&` (most keywords, titles and category names) skips the parser,
 * which is loaded by the first text that needs it, not at init.
 */
export function plainText(value: string): string {
  return safeText(decodedText(value));
}

/** The text of an HTML fragment, decoded once, not yet made safe (`plainText` is `safeText` of it). */
export function decodedText(value: string): string {
  return MARKUP_OR_ENTITY.test(value) ? textOfMarkup(value) : value;
}

function textOfMarkup(value: string): string {
  // require() rather than import(): Jest runs CommonJS, where import() needs an experimental VM flag.
  const { Parser }: { Parser: typeof HtmlParser } = require('htmlparser2');
  const parts: string[] = [];
  let hiddenDepth = 0;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (HIDDEN_CONTENT.has(name)) hiddenDepth++;
      },
      onclosetag(name) {
        if (HIDDEN_CONTENT.has(name) && hiddenDepth > 0) hiddenDepth--;
      },
      ontext(text) {
        if (hiddenDepth === 0) parts.push(text);
      },
    },
    { decodeEntities: true },
  );
  parser.end(value);
  return parts.join('');
}

/**
 * Text that is already plain, made safe to keep: lone surrogates become U+FFFD, control
 * characters go, whitespace collapses to single spaces, and `<` / `>` become `‹` / `›` so the
 * text can never open a tag; text with nothing visible is empty. Idempotent (nothing is decoded).
 */
export function safeText(text: string): string {
  const safe = wellFormedText(text)
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/</g, '\u2039')
    .replace(/>/g, '\u203A');
  return NOTHING_VISIBLE.test(safe) ? '' : safe;
}

/**
 * Text a reader cannot see: spaces, format characters (zero-width space and joiners, direction
 * marks, word joiner, soft hyphen, BOM), the blank letters (Hangul fillers, braille blank), and
 * non-spacing marks with no character to sit on (variation selectors, a lone combining accent).
 */
const NOTHING_VISIBLE = /^[\s\p{Cf}\p{Mn}\p{Me}\u115F\u1160\u3164\uFFA0\u2800]*$/u;

/** Lone surrogates as U+FFFD, control characters other than tab and line breaks removed. */
export function wellFormedText(value: string): string {
  return value.toWellFormed().replace(EVERY_CONTROL_EXCEPT_LINE_BREAKS, '');
}

/** Text as HTML character data or a quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
