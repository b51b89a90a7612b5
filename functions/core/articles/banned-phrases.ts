/**
 * Phrases a website never uses (its profile's `banned_phrases`), enforced in code: a model
 * answer that uses one is asked for once more (`withBannedPhraseRetry`), and whatever still uses
 * one after that has the phrase rewritten out of its sentence (`scrubBannedPhrases`), with a
 * `banned_phrase_removed:<phrase>` quality warning. Phrases match case-insensitively, as whole
 * words (a letter or digit next to the match means it is part of a longer word), in the text's
 * matchable form (matchable-text.ts: NFKC, curly apostrophes as "'", dashes as "-", invisible
 * characters ignored), and what matched is removed from the original text.
 */
import { textToHtml } from '../html-safety';
import { matchablePhrase, matchableText, replaceMatchable } from '../matchable-text';
import { decodedText } from '../text';
import type {
  ArticleBrief,
  ArticleMeta,
  ArticleModel,
  Outline,
  SectionPart,
  TokenUsage,
} from './article-model';
import type { FaqItem, QualityWarning } from './article-seo';

/** A compiled list of phrases: which ones a text uses, and the text without them. */
export class BannedPhrases {
  private readonly patterns: { phrase: string; pattern: RegExp; withArticle: RegExp }[];

  constructor(
    phrases: readonly string[],
    /** The article's language: in English a dangling "a"/"an"/"the" before the phrase goes with it. */
    private readonly language = 'en',
  ) {
    this.patterns = phrases
      .filter((phrase) => matchablePhrase(phrase) !== '')
      .map((phrase) => {
        // Each character literal; a zero-width space may sit between two, any space between words.
        const body = matchablePhrase(phrase)
          .split(' ')
          .map((word) =>
            Array.from(word, (character) => character.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(
              `${ZWSP}*`,
            ),
          )
          .join(GAP);
        return {
          phrase,
          pattern: new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, 'giu'),
          // "a game changer." / "a game changer for": the article goes too ("a game changer guide": not).
          withArticle: new RegExp(
            `(?<![\\p{L}\\p{N}])(?:a|an|the)${GAP}${body}(?=\\s*(?:[,.;:!?…)]|$)|\\s+(?:for|to|in|of|on|with|that|and|or|but|because)(?![\\p{L}\\p{N}]))`,
            'giu',
          ),
        };
      });
  }

  get isEmpty(): boolean {
    return this.patterns.length === 0;
  }

  /** The phrases `text` (plain text) uses, as the profile spells them. */
  foundIn(text: string): string[] {
    return this.patterns.filter(({ pattern }) => matches(pattern, text)).map(({ phrase }) => phrase);
  }

  /** Whether any of `texts` (plain text or HTML: its text is checked) uses a phrase. */
  anyIn(...texts: string[]): boolean {
    return texts.some((text) => this.foundIn(decodedText(text)).length > 0);
  }

  /**
   * Plain text with every phrase rewritten out of its sentence: the phrase goes (in English with
   * a dangling article), spaces and punctuation around it are tidied, a sentence left with no
   * word goes, and a sentence that began with it begins with a capital again.
   */
  rewrite(text: string, removed: Set<string>): string {
    let result = text;
    for (const { phrase, pattern, withArticle } of this.patterns) {
      if (!matches(pattern, result)) continue;
      removed.add(phrase);
      // A phrase that began with a capital began its sentence: what follows it begins with one.
      const mark = (match: string) => (/^\p{Lu}/u.test(match) ? CAPITAL_MARK : MARK);
      if (this.language === 'en') result = replaceMatchable(result, withArticle, mark);
      result = replaceMatchable(result, pattern, mark);
    }
    if (result === text) return text;
    // Spaces around the text (a BOM is no space to a reader: JavaScript's \s has it).
    const lead = /^[^\S\uFEFF]*/.exec(text)?.[0] ?? '';
    const trail = /[^\S\uFEFF]*$/.exec(text)?.[0] ?? '';
    const tidied = tidy(result);
    if (tidied === '') return lead !== '' || trail !== '' ? ' ' : '';
    return `${lead === '' ? '' : ' '}${tidied}${trail === '' ? '' : ' '}`;
  }

  /**
   * HTML with every phrase rewritten out of its text (markup and attributes untouched). A phrase
   * split by inline markup (`game <em>changer</em>`) is rewritten out of the text of its block,
   * which then loses its inline markup.
   */
  rewriteHtml(html: string, removed: Set<string>): string {
    const tokens = html.split(/(<[^>]*>)/);
    for (let index = 0; index < tokens.length; index += 2) {
      const segment = tokens[index] ?? '';
      if (segment === '') continue;
      const text = decodedText(segment);
      const rewritten = this.rewrite(text, removed);
      if (rewritten !== text) tokens[index] = textToHtml(rewritten);
    }
    let result = tokens.join('');
    if (this.anyIn(result)) result = this.rewriteAcrossMarkup(result, removed);
    // A paragraph or item left with nothing in it goes, then a list left with no item.
    return result
      .replace(/<(p|li|h3|blockquote)(?:\s[^>]*)?>\s*<\/\1>\n?/gi, '')
      .replace(/<(ul|ol)(?:\s[^>]*)?>\s*<\/\1>\n?/gi, '');
  }

  private rewriteAcrossMarkup(html: string, removed: Set<string>): string {
    return html.replace(
      /(<(p|li|h2|h3|h4|blockquote|td|th|figcaption)(?:\s[^>]*)?>)([\s\S]*?)(<\/\2>)/gi,
      (whole, open: string, _tag: string, inner: string, close: string) => {
        const text = decodedText(inner);
        if (this.foundIn(text).length === 0) return whole;
        return `${open}${textToHtml(this.rewrite(text, removed))}${close}`;
      },
    );
  }
}

/** A zero-width space as a regex: phrases match across it, in a word or between words. */
const ZWSP = '\\u200B';
/** Between two words of a phrase: any run of whitespace and zero-width spaces. */
const GAP = `[\\s${ZWSP}]+`;

/** Mark where a phrase was taken out, until the sentence is tidied (private-use characters). */
const MARK = '\uE000';
const CAPITAL_MARK = '\uE001';

/** Whether `text`, as matchable text, holds a match of `pattern`. */
function matches(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  const found = pattern.test(matchableText(text).text);
  pattern.lastIndex = 0;
  return found;
}

/** Text where `MARK` marks a removed phrase: spaces, punctuation and capitals made right again. */
function tidy(marked: string): string {
  const sentences = marked.split(/(?<=[.!?…])(\s+)/);
  const kept = sentences.map((sentence) => {
    if (!/[\uE000\uE001]/.test(sentence)) return sentence;
    const capital = /^\s*\uE001/.test(sentence);
    let result = sentence
      .replace(/[ \t]*[\uE000\uE001][ \t]*/g, ' ')
      .replace(/[ \t]{2,}/g, ' ')
      .replace(/\s+([,.;:!?…])/g, '$1')
      .replace(/([,;:])(?=[,.;:!?…])/g, '')
      .replace(/^[\s,;:]+/, '')
      .replace(/\(\s*\)/g, '')
      // What led to a phrase that ended the text ("Guide: game changer") goes with it.
      .replace(/[\s,;:\u2013\u2014-]+$/u, '')
      .trimEnd();
    if (!/[\p{L}\p{N}]/u.test(result)) return '';
    if (capital) result = result.charAt(0).toLocaleUpperCase() + result.slice(1);
    return /^\s/.test(sentence) ? ` ${result}` : result;
  });
  return kept
    .join('')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** What the model is told when its answer used a phrase. */
export function bannedPhraseFeedback(phrases: string[]): string {
  return `Your previous answer used phrases this website never uses: ${phrases.map((phrase) => `"${phrase}"`).join(', ')}. Write it again without them (nor in any other case).`;
}

const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
});

const joinFeedback = (first: string | undefined, second: string) => (first ? `${first}\n${second}` : second);

/**
 * The model, each of whose answers (outline, part, meta) is asked for once more when it uses a
 * banned phrase; the second answer is kept (what it still uses is rewritten afterwards).
 */
export function withBannedPhraseRetry(model: ArticleModel, banned: BannedPhrases): ArticleModel {
  if (banned.isEmpty) return model;
  const used = (...texts: string[]) => [
    ...new Set(texts.flatMap((text) => banned.foundIn(decodedText(text)))),
  ];
  return {
    providerModel: model.providerModel,
    async outline(brief: ArticleBrief, feedback?: string) {
      const first = await model.outline(brief, feedback);
      const phrases = used(first.outline.title, ...first.outline.headings);
      if (phrases.length === 0) return first;
      const second = await model.outline(brief, joinFeedback(feedback, bannedPhraseFeedback(phrases)));
      return { outline: second.outline, usage: addUsage(first.usage, second.usage) };
    },
    async write(brief: ArticleBrief, part: SectionPart, feedback?: string) {
      const first = await model.write(brief, part, feedback);
      const phrases = used(first.html);
      if (phrases.length === 0) return first;
      const second = await model.write(brief, part, joinFeedback(feedback, bannedPhraseFeedback(phrases)));
      return { html: second.html, usage: addUsage(first.usage, second.usage) };
    },
    async meta(brief: ArticleBrief, outline: Outline, feedback?: string) {
      const first = await model.meta(brief, outline, feedback);
      const phrases = used(...metaTexts(first.meta));
      if (phrases.length === 0) return first;
      const second = await model.meta(brief, outline, joinFeedback(feedback, bannedPhraseFeedback(phrases)));
      return { meta: second.meta, usage: addUsage(first.usage, second.usage) };
    },
  };
}

function metaTexts(meta: ArticleMeta): string[] {
  return [
    meta.metaDescription,
    meta.excerpt,
    ...meta.faq.flatMap((item) => [item.question, item.answer]),
    ...meta.tags,
  ];
}

/** The parts of a written article a reader sees, as `scrubBannedPhrases` takes and gives them. */
export interface ScrubbedText {
  title: string;
  /** HTML. */
  content: string;
  metaDescription: string;
  excerpt: string;
  faq: FaqItem[];
  tags: string[];
}

/**
 * Every banned phrase rewritten out of the title, the body (headings included), the FAQ, the
 * meta description and the excerpt; a tag that is or holds one is dropped. Each phrase removed
 * is named in a warning.
 */
export function scrubBannedPhrases(
  written: ScrubbedText,
  banned: BannedPhrases,
): { text: ScrubbedText; warnings: QualityWarning[] } {
  if (banned.isEmpty) return { text: written, warnings: [] };
  const removed = new Set<string>();
  const text: ScrubbedText = {
    title: banned.rewrite(written.title, removed),
    content: banned.rewriteHtml(written.content, removed),
    metaDescription: banned.rewrite(written.metaDescription, removed),
    excerpt: banned.rewrite(written.excerpt, removed),
    faq: written.faq
      .map((item) => ({
        question: banned.rewrite(item.question, removed),
        answer: banned.rewrite(item.answer, removed),
      }))
      .filter((item) => item.question !== '' && item.answer !== ''),
    tags: written.tags.filter((tag) => {
      const found = banned.foundIn(tag);
      for (const phrase of found) removed.add(phrase);
      return found.length === 0;
    }),
  };
  return {
    text,
    warnings: [...removed].map((phrase): QualityWarning => `banned_phrase_removed:${phrase}`),
  };
}
