/**
 * Models asked for HTML still answer with markdown now and then: `**bold**`, `## headings`,
 * `- list items`, code fences around the whole answer, or a mix of HTML and markdown. These
 * helpers turn that markdown into the HTML it means (or drop the markers) before the HTML is
 * sanitised, and check that nothing is left afterwards.
 */
import type { MarkdownIt, default as MarkdownItClass } from 'markdown-it';
import { plainText } from '../text';

let markdown: MarkdownIt | undefined;
/**
 * CommonMark with inline HTML passed through; indented code is off (pretty-printed HTML is not
 * code). Built on first use (see `setUpArticleToolsMeanwhile` in write-article.ts): require()
 * keeps markdown-it out of a bundle's init.
 */
export function markdownRenderer(): MarkdownIt {
  if (!markdown) {
    // Node gives the CommonJS build (the class itself), the lazy module its ES build (`default`).
    const loaded: typeof MarkdownItClass | { default: typeof MarkdownItClass } = require('markdown-it');
    const Renderer = 'default' in loaded ? loaded.default : loaded;
    markdown = new Renderer({ html: true, linkify: false, typographer: false, breaks: false }).disable([
      'code',
    ]);
  }
  return markdown;
}

const FENCE_LINE = /^[ \t]*(?:```|~~~)[^\n`]*$/gm;
/** `<p>` wrappers become blank lines, so markdown inside a paragraph is read as markdown. */
const PARAGRAPH_TAG = /<\/?p(?:\s[^>]*)?>/gi;
const TAG = /(<[^>]*>)/;
/** Indentation before a tag (pretty-printed HTML), which markdown would read as a paragraph. */
const INDENTED_TAG = /^[ \t]+(?=<)/gm;

/** Model output (HTML, markdown or both) as HTML; still to be sanitised. */
export function markdownToHtml(text: string): string {
  const unfenced = text.replace(FENCE_LINE, '');
  const unwrapped = unfenced.replace(PARAGRAPH_TAG, '\n\n').replace(INDENTED_TAG, '');
  return mapText(markdownRenderer().render(unwrapped), inlineMarkdownToHtml);
}

/** `**x**` / `__x__` to strong, `*x*` / `_x_` to em, `` `x` `` to x, in text between tags. */
function inlineMarkdownToHtml(text: string): string {
  return text
    .replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\p{L}\p{N}_])__(?=\S)([^_]*?\S)__(?![\p{L}\p{N}_])/gu, '$1<strong>$2</strong>')
    .replace(/(^|[^*\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?!\*)/g, '$1<em>$2</em>')
    .replace(/(^|[^\p{L}\p{N}_])_(?=[^\s_])([^_\n]*?[^\s_])_(?![\p{L}\p{N}_])/gu, '$1<em>$2</em>')
    .replace(/`([^`\n]+)`/g, '$1');
}

/** Applies `transform` to the text between the tags of an HTML string. */
function mapText(html: string, transform: (text: string) => string): string {
  return html
    .split(TAG)
    .map((piece, index) => (index % 2 === 1 ? piece : transform(piece)))
    .join('');
}

const BLOCK_START = /^<(p|li|h[1-6]|blockquote|td|th)(?:\s[^>]*)?>$/i;
const LEADING_HEADING_MARKER = /^(\s*)#{1,6}\s+/;
const LEADING_LIST_MARKER = /^(\s*)(?:[-*+]|\d{1,2}[.)])\s+/;
const LEFTOVER_MARKERS = /\*\*|__|```|~~~/g;

/**
 * Removes the markdown markers still in sanitised HTML (inside tags the converter kept as they
 * were): leading `#` and list markers at the start of a block, `**`, `__` and fences anywhere.
 */
export function scrubMarkdown(html: string): string {
  const pieces = html.split(TAG);
  for (let index = 0; index < pieces.length; index += 2) {
    let text = pieces[index] ?? '';
    const opening = pieces[index - 1];
    if (opening && BLOCK_START.test(opening)) {
      text = text.replace(LEADING_HEADING_MARKER, '$1').replace(LEADING_LIST_MARKER, '$1');
    }
    pieces[index] = text.replace(LEFTOVER_MARKERS, '');
  }
  return pieces.join('');
}

/** Markdown markers found in HTML text (an empty list when clean). */
export function findMarkdown(html: string): string[] {
  const found: string[] = [];
  const pieces = html.split(TAG);
  for (let index = 0; index < pieces.length; index += 2) {
    const text = pieces[index] ?? '';
    const opening = pieces[index - 1];
    const atBlockStart = opening !== undefined && BLOCK_START.test(opening);
    if (atBlockStart && LEADING_HEADING_MARKER.test(text)) found.push(text.trim().slice(0, 20));
    if (atBlockStart && LEADING_LIST_MARKER.test(text) && /^\s*[-*+]/.test(text)) {
      found.push(text.trim().slice(0, 20));
    }
    for (const match of text.match(LEFTOVER_MARKERS) ?? []) found.push(match);
    for (const match of text.match(/(^|\s)\*(?=\S)[^*\n]+\*(?=\s|$|[.,;:!?])/g) ?? [])
      found.push(match.trim());
  }
  return found;
}

/** One line of plain text (a title, heading, question, tag) without markdown markers or tags. */
export function plainTextFromMarkdown(text: string): string {
  const unmarked = text
    .replace(FENCE_LINE, '')
    .replace(/^\s*#{1,6}\s+/gm, '')
    .replace(/^\s*(?:[-*+]|\d{1,2}[.)])\s+/gm, '')
    .replace(/\*\*|__|`/g, '')
    .replace(/(^|[^\p{L}\p{N}])[*_](?=\S)([^*_\n]*?\S)[*_](?![\p{L}\p{N}])/gu, '$1$2');
  return plainText(unmarked);
}
