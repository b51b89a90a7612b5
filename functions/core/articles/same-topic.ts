/**
 * No second article on a topic the site already covers: a post of the website's site index
 * with the same focus keyword (compared as `comparableText`: compatibility forms as plain
 * letters, case folded, accents and separating punctuation removed, "+" and "#" kept in a word),
 * or a near-identical title: the Jaccard index of the two titles' sets of words (compared alike)
 * is at least NEAR_IDENTICAL_TITLE (docs/decisions.md). Every published post counts, noindex
 * ones too (they are the site's own text on the topic).
 */
import { SameTopicError } from '../errors';
import type { SiteIndexStore } from '../websites/ports';
import type { IndexedPost } from '../websites/site-index';

/** Titles at least this similar (Jaccard index of their word sets) are the same title. */
export const NEAR_IDENTICAL_TITLE = 0.9;

/**
 * Text with compatibility forms as their plain characters (NFKD: fullwidth "ｓ" as "s", "ﬁ" as
 * "fi"), case folded (lower case, then "ß" and "ẞ" as "ss" and final "ς" as "σ", as Unicode full
 * case folding does: JavaScript has no casefold) and accents removed. Works character by
 * character too (findPhrase in internal-links.ts folds a paragraph one character at a time).
 */
export function foldedText(text: string): string {
  return text.normalize('NFKD').toLowerCase().replace(/ß/g, 'ss').replace(/ς/g, 'σ').replace(/\p{M}/gu, '');
}

/** A character of a word once folded: a letter, a digit, or "+" and "#" (C++, C# and C differ). */
export const WORD_CHARACTER = /[\p{L}\p{N}+#]/u;

/** A word of only "+" and "#" ("salt + pepper"): a separator like any other punctuation. */
export function isSeparatorWord(word: string): boolean {
  return /^[+#]+$/.test(word);
}

/**
 * Text compared without case, accents or separating punctuation (docs/decisions.md): folded
 * (`foldedText`), words are runs of `WORD_CHARACTER`s joined by one space, and a word of only
 * "+" and "#" is left out. "Crème-Brûlée!" and "creme  brulee" are "creme brulee"; "C++",
 * "C#" and "C" stay three words.
 */
export function comparableText(text: string): string {
  return foldedText(text)
    .replace(/[^\p{L}\p{N}+#]+/gu, ' ')
    .split(' ')
    .filter((word) => word !== '' && !isSeparatorWord(word))
    .join(' ');
}

function words(text: string): Set<string> {
  const comparable = comparableText(text);
  return new Set(comparable === '' ? [] : comparable.split(' '));
}

/** The Jaccard index of two titles' word sets (0 when either has no word). */
export function titleSimilarity(a: string, b: string): number {
  const first = words(a);
  const second = words(b);
  if (first.size === 0 || second.size === 0) return 0;
  let shared = 0;
  for (const word of first) if (second.has(word)) shared++;
  return shared / (first.size + second.size - shared);
}

export interface Topic {
  focusKeyword: string;
  title?: string;
}

/** The first indexed post on the same topic: the same focus keyword first, then a near-identical title. */
export function sameTopicPost(posts: readonly IndexedPost[], topic: Topic): IndexedPost | undefined {
  const keyword = comparableText(topic.focusKeyword);
  if (keyword !== '') {
    const same = posts.find(
      (post) => post.focusKeyword !== '' && comparableText(post.focusKeyword) === keyword,
    );
    if (same) return same;
  }
  const title = topic.title;
  if (title === undefined || comparableText(title) === '') return undefined;
  return posts.find((post) => titleSimilarity(post.title, title) >= NEAR_IDENTICAL_TITLE);
}

/** Refuses a create whose topic a post of the website's index covers (the index as stored: no site call). */
export async function refuseSameTopic(
  siteIndex: Pick<SiteIndexStore, 'getState' | 'list'>,
  websiteUuid: string,
  topic: Topic,
): Promise<void> {
  const state = await siteIndex.getState(websiteUuid);
  if (state === undefined || !state.supported) return;
  const existing = sameTopicPost(await siteIndex.list(websiteUuid), topic);
  if (existing) throw new SameTopicError(existing);
}
