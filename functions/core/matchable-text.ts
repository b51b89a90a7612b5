/**
 * Text as a phrase rule compares it (banned phrases, banned-phrases.ts): what a reader sees as
 * the same characters is the same. Each character (grapheme cluster) in NFKC (fullwidth "Ｄ" as
 * "D", a decomposed "i" + U+0308 as "ï"), apostrophe variants (’ ‘ ‛ ʼ ＇) as "'", hyphen and
 * dash variants as "-", and invisible format characters (joiners, word joiner, soft hyphen, BOM,
 * direction marks) left out; a zero-width space stays (as U+200B), a phrase matches across it.
 * Case and accents are kept: the matcher's regex ignores case, and an accent can make another
 * word ("año" is not "ano"), so `foldedText` of same-topic.ts (NFKD, accents removed) does not fit.
 * Every character of the matchable text knows the characters of the original it came from, so a
 * match found in it is removed from the original.
 */

/** A zero-width space: kept in matchable text, where a phrase matches across it. */
export const ZERO_WIDTH_SPACE = '\u200B';

const APOSTROPHES = /[\u2018\u2019\u201B\u02BC\uFF07]/g;
const DASHES = /[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/g;
/** Invisible format characters a phrase is compared without. */
const INVISIBLE = /[\u00AD\u180E\u200C-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
/** Only printable ASCII and line breaks: the text is its own matchable text. */
const PLAIN_ASCII = /^[\t\n\r -~]*$/;

let graphemes: Intl.Segmenter | undefined;

/** The matchable text of `text`, and where each of its UTF-16 units came from in `text`. */
export interface MatchableText {
  text: string;
  /** Per unit of `text`: the start of the original characters it came from (none: the same offsets). */
  starts?: number[];
  /** Per unit of `text`: the end of the original characters it came from. */
  ends?: number[];
}

function matchableCharacters(cluster: string): string {
  return cluster.normalize('NFKC').replace(INVISIBLE, '').replace(APOSTROPHES, "'").replace(DASHES, '-');
}

export function matchableText(text: string): MatchableText {
  if (PLAIN_ASCII.test(text)) return { text };
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const parts: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (const { segment, index } of graphemes.segment(text)) {
    const folded = matchableCharacters(segment);
    parts.push(folded);
    for (let unit = 0; unit < folded.length; unit++) {
      starts.push(index);
      ends.push(index + segment.length);
    }
  }
  return { text: parts.join(''), starts, ends };
}

/** A phrase as it is matched: its matchable text, without zero-width spaces, its words split by one space. */
export function matchablePhrase(phrase: string): string {
  return matchableText(phrase).text.replaceAll(ZERO_WIDTH_SPACE, ' ').trim().split(/\s+/).join(' ');
}

/**
 * `text` with every match of `pattern` (global, run on its matchable text) replaced by what
 * `replacement` gives for the matched matchable text: the original characters of the match go.
 */
export function replaceMatchable(
  text: string,
  pattern: RegExp,
  replacement: (matched: string) => string,
): string {
  const matchable = matchableText(text);
  let result = '';
  let copied = 0;
  for (const match of matchable.text.matchAll(pattern)) {
    if (match[0] === '') continue;
    const first = match.index;
    const last = first + match[0].length - 1;
    // Invisible characters right before or after the match (they have no matchable text) go with it.
    const { starts, ends } = matchable;
    const start =
      starts && ends ? Math.min(starts[first] ?? 0, first === 0 ? 0 : (ends[first - 1] ?? 0)) : first;
    const end =
      starts && ends ? Math.max(ends[last] ?? text.length, starts[last + 1] ?? text.length) : last + 1;
    // Two matches from one original character (a ligature split): the first took it.
    if (start < copied) continue;
    result += text.slice(copied, start) + replacement(match[0]);
    copied = end;
  }
  return copied === 0 && result === '' ? text : result + text.slice(copied);
}
