/**
 * Checks an article passes before it is stored: the focus keyword where readers and search
 * engines look (title, first paragraph, meta description, an H2), the meta description's
 * length, no paragraph said twice, and the exact number of H2 sections.
 */
import { plainText } from '../text';

export const META_DESCRIPTION_MIN = 120;
export const META_DESCRIPTION_MAX = 160;

/** Text compared without case, accents or punctuation. */
function comparable(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLocaleLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Whether `text` (plain text or HTML) contains the keyword, ignoring case, accents and punctuation. */
export function containsKeyword(text: string, keyword: string): boolean {
  const wanted = comparable(keyword);
  if (wanted === '') return true;
  return ` ${comparable(plainText(text))} `.includes(wanted);
}

const PARAGRAPH = /<p(?:\s[^>]*)?>([\s\S]*?)<\/p>/gi;

/** The text of the first paragraph of an HTML fragment ('' when it has none). */
export function firstParagraphText(html: string): string {
  PARAGRAPH.lastIndex = 0;
  const match = PARAGRAPH.exec(html);
  return match ? plainText(match[1] ?? '') : '';
}

/**
 * Drops every paragraph whose text was already said earlier in the article, except where that
 * would leave a part (the introduction, or an H2 section up to the next H2) with no text under
 * its heading: such a part stays whole, since a heading over nothing is worse than a repeat.
 */
export function dropRepeatedParagraphs(html: string): string {
  return dropRepeatedParagraphsOfParts(html.split(/(?=<h2[\s>])/i)).join('');
}

/**
 * `dropRepeatedParagraphs` over an article given as its parts in reading order (the
 * introduction, each section's body, the conclusion): each part is one of the parts above, so
 * the result is the same as on the joined HTML. Used before the internal links are placed, so
 * that no link lands in a paragraph dropped afterwards.
 */
export function dropRepeatedParagraphsOfParts(parts: readonly string[]): string[] {
  const seen = new Set<string>();
  return parts.map((part) => {
    const kept = part.replace(PARAGRAPH, (whole, inner: string) => {
      const key = comparable(plainText(inner));
      if (key === '') return whole;
      if (seen.has(key)) return '';
      seen.add(key);
      return whole;
    });
    return hasTextBesideHeadings(kept) || !hasTextBesideHeadings(part) ? kept : part;
  });
}

function hasTextBesideHeadings(html: string): boolean {
  return plainText(html.replace(/<h[1-6][\s>][\s\S]*?<\/h[1-6]>/gi, ' ')).trim() !== '';
}

export function countH2(html: string): number {
  return html.match(/<h2[\s>]/gi)?.length ?? 0;
}

/** At most 160 characters, cut at a word boundary; `tooShort` when under 120. */
export function fitMetaDescription(text: string): { text: string; tooShort: boolean } {
  const fitted = cutAtWord(text, META_DESCRIPTION_MAX, META_DESCRIPTION_MIN);
  return { text: fitted, tooShort: fitted.length < META_DESCRIPTION_MIN };
}

/** The longest excerpt kept (sites' plugins refuse more than 1,000; a teaser is a few lines). */
export const EXCERPT_MAX = 300;

/** The first two sentences, at most EXCERPT_MAX characters (cut at a word, marked with `…`). */
export function fitExcerpt(text: string): string {
  const sentences = firstSentences(text);
  const fitted = cutAtWord(sentences, EXCERPT_MAX - 1, EXCERPT_MAX / 2);
  return fitted === sentences.trim() ? fitted : `${fitted}…`;
}

/**
 * At most `max` characters (code points: a surrogate pair is never split), cut at the last space
 * after `min` characters when there is one, without trailing punctuation that joins words.
 */
function cutAtWord(text: string, max: number, min: number): string {
  const characters = [...text.trim()];
  if (characters.length <= max) return characters.join('');
  const cut = characters.slice(0, max + 1);
  const lastSpace = cut.lastIndexOf(' ');
  return (lastSpace > min ? cut.slice(0, lastSpace) : cut.slice(0, max))
    .join('')
    .replace(/[\s,;:–—-]+$/u, '')
    .trim();
}

/** Whether a meta description is of the right length and names the keyword. */
export function metaDescriptionPasses(text: string, keyword: string): boolean {
  return (
    text.length >= META_DESCRIPTION_MIN &&
    text.length <= META_DESCRIPTION_MAX &&
    containsKeyword(text, keyword)
  );
}

let sentences: Intl.Segmenter | undefined;
/**
 * Built on first use (see `setUpArticleToolsMeanwhile` in write-article.ts): the first Intl
 * object of a process starts ICU (~7 ms).
 */
export function sentenceSegmenter(): Intl.Segmenter {
  sentences ??= new Intl.Segmenter(undefined, { granularity: 'sentence' });
  return sentences;
}

/** The first one or two sentences of a text. */
export function firstSentences(text: string, count = 2): string {
  const sentences: string[] = [];
  for (const { segment } of sentenceSegmenter().segment(text.trim())) {
    if (segment.trim() === '') continue;
    sentences.push(segment.trim());
    if (sentences.length === count) break;
  }
  return sentences.join(' ');
}
