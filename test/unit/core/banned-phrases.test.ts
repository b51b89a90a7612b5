/** Banned phrases: whole words in any case, asked for once more, then rewritten out of their sentence. */

import { OfflineArticleModel } from '../../../functions/adapters/model/offline-article-model';
import type { Article } from '../../../functions/core/articles/article';
import type { ArticleModel } from '../../../functions/core/articles/article-model';
import {
  BannedPhrases,
  scrubBannedPhrases,
  withBannedPhraseRetry,
} from '../../../functions/core/articles/banned-phrases';
import { withoutBannedPhrases, writeGeneration } from '../../../functions/core/articles/generation-step';

const banned = new BannedPhrases(['game changer', 'delve', 'R&D']);

describe('BannedPhrases', () => {
  it('finds phrases in any case, as whole words only', () => {
    expect(banned.foundIn('A Game  Changer for bakers')).toEqual(['game changer']);
    expect(banned.foundIn('They DELVE into it.')).toEqual(['delve']);
    expect(banned.foundIn('Our r&d team')).toEqual(['R&D']);
    // Part of a longer word is not the word.
    expect(banned.foundIn('delved, delves and game changers')).toEqual([]);
    expect(banned.foundIn('Ελληνικά delveα')).toEqual([]);
  });

  it('rewrites a phrase out of its sentence, tidying spaces, punctuation and capitals', () => {
    const removed = new Set<string>();
    expect(banned.rewrite('This is a game changer for bakers.', removed)).toBe('This is for bakers.');
    expect(banned.rewrite('Delve into sourdough, then bake.', removed)).toBe('Into sourdough, then bake.');
    expect(banned.rewrite('Bake it , delve , and rest.', removed)).toBe('Bake it, and rest.');
    expect(banned.rewrite('Game changer! Bread is simple.', removed)).toBe('Bread is simple.');
    expect([...removed].sort()).toEqual(['delve', 'game changer']);
  });

  it('takes the punctuation that led to a phrase ending a title or heading with it', () => {
    const removed = new Set<string>();
    expect(banned.rewrite('Fake guide to bread: game changer', removed)).toBe('Fake guide to bread');
    expect(banned.rewrite('Heading about bread, game changer', removed)).toBe('Heading about bread');
    expect(banned.rewrite('Bread \u2014 a game changer', removed)).toBe('Bread');
    expect(banned.rewrite('Guide: game changer.', removed)).toBe('Guide.');
  });

  it('leaves text without a phrase exactly as it was', () => {
    const removed = new Set<string>();
    const text = 'Plain  text, with   its own spacing .';
    expect(banned.rewrite(text, removed)).toBe(text);
    expect(removed.size).toBe(0);
  });

  it('rewrites HTML text only: markup, links and attributes stay', () => {
    const removed = new Set<string>();
    const html =
      '<p>Our <a href="https://example.com/game-changer">guide</a> is a game changer.</p>\n<h2>Delve deeper</h2>';
    expect(banned.rewriteHtml(html, removed)).toBe(
      '<p>Our <a href="https://example.com/game-changer">guide</a> is.</p>\n<h2>Deeper</h2>',
    );
  });

  it('drops a list left with no item once its only item was the phrase', () => {
    const removed = new Set<string>();
    expect(
      banned.rewriteHtml(
        '<p>Knead.</p>\n<ul>\n<li>game changer</li>\n</ul>\n<ol><li>Delve</li></ol><p>Bake.</p>',
        removed,
      ),
    ).toBe('<p>Knead.</p>\n<p>Bake.</p>');
    expect(banned.rewriteHtml('<ul><li>Rye</li><li>Game changer</li></ul>', removed)).toBe(
      '<ul><li>Rye</li></ul>',
    );
  });

  it('rewrites a phrase split by inline markup out of its block', () => {
    const removed = new Set<string>();
    const result = banned.rewriteHtml('<p>A true game <strong>changer</strong> here.</p>', removed);
    expect(banned.anyIn(result)).toBe(false);
    expect(result).toBe('<p>A true here.</p>');
  });

  it('drops a paragraph that was nothing but the phrase', () => {
    expect(banned.rewriteHtml('<p>Delve.</p>\n<p>Bread.</p>', new Set())).toBe('<p>Bread.</p>');
  });
});

/** A model that keeps writing "game changer" everywhere, whatever it is told. */
function stubbornModel(calls: { feedback?: string }[]): ArticleModel {
  const writer = new OfflineArticleModel();
  return {
    providerModel: 'stubborn',
    async outline(brief, feedback) {
      calls.push({ feedback });
      const { outline, usage } = await writer.outline(brief);
      return {
        outline: {
          title: `${outline.title}, a game changer`,
          headings: outline.headings.map((h) => `${h}: Game Changer`),
        },
        usage,
      };
    },
    async write(brief, part, feedback) {
      calls.push({ feedback });
      const { html, usage } = await writer.write(brief, part);
      return { html: `${html}<p>Truly a game changer for ${brief.keyword}.</p>`, usage };
    },
    async meta(brief, outline, feedback) {
      calls.push({ feedback });
      const { meta, usage } = await writer.meta(brief, outline);
      return {
        meta: {
          ...meta,
          metaDescription: `A game changer: ${meta.metaDescription}`,
          excerpt: `${meta.excerpt} A game changer.`,
          faq: meta.faq.map((item) => ({ ...item, answer: `${item.answer} A game changer.` })),
          tags: [...meta.tags, 'game changer'],
        },
        usage,
      };
    },
  };
}

const article = {
  keyword: 'sourdough bread',
  h2Count: 2,
  aiModel: 'gpt-3.5-turbo',
  language: 'en',
  needBold: false,
  draft: false,
  faqCount: 2,
  autoTags: true,
  siteProfile: { bannedPhrases: ['game changer'] },
} as unknown as Article;

describe('a model that keeps using a banned phrase', () => {
  it('is asked once more for each part, then the phrase is rewritten out everywhere, with a warning', async () => {
    const calls: { feedback?: string }[] = [];
    const written = await writeGeneration(stubbornModel(calls), article);

    // Every part twice: once, then once more with the feedback naming the phrase (no third time).
    const retries = calls.filter((call) => call.feedback?.includes('"game changer"'));
    expect(retries.length).toBe(calls.length / 2);
    expect(calls.length).toBeGreaterThanOrEqual(2 * (1 + 4 + 1));

    const visible = [
      written.title,
      written.content,
      written.seo.metaDescription,
      written.seo.excerpt,
      ...written.seo.faq.flatMap((item) => [item.question, item.answer]),
      ...written.seo.tags,
    ];
    expect(visible.filter((text) => /game\s+changer/i.test(text))).toEqual([]);
    expect(written.seo.qualityWarnings).toContain('banned_phrase_removed:game changer');
    expect(written.seo.faq).toHaveLength(2);
    expect(written.content.match(/<h2>/g)).toHaveLength(3);
  });

  it('a model that obeys the second time leaves no warning', async () => {
    let told = false;
    const writer = new OfflineArticleModel();
    const learner: ArticleModel = {
      providerModel: 'learner',
      outline: (brief) => writer.outline(brief),
      meta: (brief, outline) => writer.meta(brief, outline),
      async write(brief, part, feedback) {
        const { html, usage } = await writer.write(brief, part);
        if (feedback?.includes('game changer')) told = true;
        return { html: feedback ? html : `${html}<p>A game changer.</p>`, usage };
      },
    };
    const written = await writeGeneration(learner, article);
    expect(told).toBe(true);
    expect(written.content).not.toMatch(/game changer/i);
    expect(written.seo.qualityWarnings.filter((w) => w.startsWith('banned_phrase'))).toEqual([]);
  });

  it('adds the two answers’ tokens', async () => {
    const model = withBannedPhraseRetry(
      {
        providerModel: 'x',
        outline: async () => ({
          outline: { title: 'Delve', headings: ['a'] },
          usage: { promptTokens: 10, completionTokens: 5 },
        }),
        write: async () => ({ html: '', usage: { promptTokens: 0, completionTokens: 0 } }),
        meta: async () => {
          throw new Error('unused');
        },
      },
      banned,
    );
    const { usage } = await model.outline({} as never);
    expect(usage).toEqual({ promptTokens: 20, completionTokens: 10 });
  });
});

describe('scrubBannedPhrases', () => {
  it('is the last word whatever wrote the text: title, body, FAQ, description, excerpt, tags', () => {
    const { text, warnings } = scrubBannedPhrases(
      {
        title: 'Delve into bread',
        content: '<p>We delve.</p><p>Bread.</p>',
        metaDescription: 'A game changer guide.',
        excerpt: 'Short.',
        faq: [{ question: 'Why delve?', answer: 'Because.' }],
        tags: ['delve', 'bread'],
      },
      banned,
    );
    expect(text).toEqual({
      title: 'Into bread',
      content: '<p>We.</p><p>Bread.</p>',
      metaDescription: 'A guide.',
      excerpt: 'Short.',
      faq: [{ question: 'Why?', answer: 'Because.' }],
      tags: ['bread'],
    });
    expect(warnings.sort()).toEqual(['banned_phrase_removed:delve', 'banned_phrase_removed:game changer']);
  });

  it('changes nothing without phrases', () => {
    const written = {
      title: 't',
      content: '<p>c</p>',
      totalWords: 1,
      usage: { promptTokens: 0, completionTokens: 0 },
      seo: { metaDescription: '', excerpt: '', focusKeyword: 'k', faq: [], tags: [], qualityWarnings: [] },
    };
    expect(withoutBannedPhrases(written, new BannedPhrases([]))).toBe(written);
  });
});

/**
 * How a model writes a banned phrase that the profile typed plainly: (a) curly apostrophes,
 * (b) invisible characters inside, (c) fullwidth letters, (d) decomposed accents.
 */
const VARIANTS: [phrase: string, written: string][] = [
  ["don't worry", 'Don\u2019t worry'],
  ["don't worry", 'don\u2018t worry'],
  ["don't worry", 'DON\u02BCT WORRY'],
  ["don't worry", 'Don\uFF07t worry'],
  ['game changer', 'game\u200B changer'],
  ['game changer', 'Game\u200Bchanger'],
  ['game changer', 'ga\u200Cme chan\u200Dger'],
  ['delve', 'DEL\u00ADVE'],
  ['delve', 'de\u2060lve'],
  ['delve', '\uFEFFdelve'],
  ['delve', '\uFF24\uFF45\uFF4C\uFF56\uFF45'],
  ['naïve', 'nai\u0308ve'],
  ['naïve', 'NAI\u0308VE'],
];
const PHRASES = [...new Set(VARIANTS.map(([phrase]) => phrase))];

/** What a reader sees: invisible characters left out (a zero-width space as a space), NFKC, straight apostrophes. */
function asSeen(text: string): string {
  return text
    .replace(/\u00AD|\u200C|\u200D|\u2060|\uFEFF/g, '')
    .replace(/\u200B/g, ' ')
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u02BC]/g, "'");
}

function phrasesSeenIn(text: string): string[] {
  const seen = asSeen(text);
  return PHRASES.filter((phrase) =>
    new RegExp(`(?<![\\p{L}\\p{N}])${phrase.replace(/ /g, '\\s+')}(?![\\p{L}\\p{N}])`, 'iu').test(seen),
  );
}

describe('a banned phrase written with other characters than the profile typed', () => {
  const variantBanned = new BannedPhrases(PHRASES);

  it.each(VARIANTS)('finds and rewrites out "%s" written as %j', (phrase, written) => {
    expect(variantBanned.foundIn(`Well, ${written} here.`)).toEqual([phrase]);
    const removed = new Set<string>();
    const text = variantBanned.rewrite(`${written}, the bread rises.`, removed);
    // A sentence that began with the phrase begins with what follows, as the phrase began.
    expect(text.toLowerCase()).toBe('the bread rises.');
    expect([...removed]).toEqual([phrase]);
    const html = variantBanned.rewriteHtml(
      `<p>We say ${written} <a href="https://example.com/x">here</a>.</p>`,
      removed,
    );
    expect(html).toBe('<p>We say <a href="https://example.com/x">here</a>.</p>');
  });

  it('still matches whole words only, and finds a phrase stored with a curly apostrophe', () => {
    expect(variantBanned.foundIn('Ｄｅｌｖｅｄ, nai\u0308vety and gamechangers')).toEqual([]);
    expect(new BannedPhrases(['Don\u2019t worry']).foundIn("don't  worry")).toEqual(['Don\u2019t worry']);
    expect(new BannedPhrases(['a.b']).foundIn('axb')).toEqual([]);
  });

  it.each(VARIANTS)(
    'the published title, headings and sections hold no "%s" written as %j, and a warning names it',
    async (phrase, written) => {
      const writer = new OfflineArticleModel();
      const model: ArticleModel = {
        providerModel: 'variant',
        async outline(brief) {
          const { outline, usage } = await writer.outline(brief);
          return {
            outline: {
              title: `${written} ${outline.title}`,
              headings: outline.headings.map((heading) => `${heading}: ${written}`),
            },
            usage,
          };
        },
        async write(brief, part) {
          const { html, usage } = await writer.write(brief, part);
          return { html: `${html}<p>Truly, ${written} for ${brief.keyword}.</p>`, usage };
        },
        meta: (brief, outline) => writer.meta(brief, outline),
      };
      const result = await writeGeneration(model, {
        ...article,
        siteProfile: { bannedPhrases: [phrase] },
      } as unknown as Article);
      const headings = [...result.content.matchAll(/<h[2-4][^>]*>([\s\S]*?)<\/h[2-4]>/g)].map(
        (m) => m[1] ?? '',
      );
      expect(headings.length).toBeGreaterThan(0);
      for (const text of [result.title, result.content, ...headings]) expect(phrasesSeenIn(text)).toEqual([]);
      expect(result.seo.qualityWarnings).toContain(`banned_phrase_removed:${phrase}`);
    },
  );
});
