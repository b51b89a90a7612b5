import { OFFLINE_NOTICE, OfflineArticleModel } from '../../../functions/adapters/model/offline-article-model';
import type { ArticleMeta, ArticleModel } from '../../../functions/core/articles/article-model';
import { findMarkdown } from '../../../functions/core/articles/markdown-cleanup';
import { countWords, writeArticle } from '../../../functions/core/articles/write-article';

const NO_USAGE = { promptTokens: 0, completionTokens: 0 };
const goodMeta = (keyword: string): ArticleMeta => ({
  metaDescription: `Everything about ${keyword}: how it works, what to avoid and how to get the best results at home, explained step by step for beginners.`,
  excerpt: 'A short guide. It covers the basics. And more.',
  faq: [],
  tags: [],
});

const request = {
  keyword: 'sourdough bread, starter',
  h2Count: 4,
  aiModel: 'gpt-3.5-turbo' as const,
  language: 'fr',
  needBold: false,
  draft: false,
};

describe('offline writer', () => {
  it('honours h2_count, the given title, the language code and need_bold, and says it is offline', async () => {
    const model = new OfflineArticleModel();
    const plain = await writeArticle(model, { ...request, title: 'Mon pain' });
    expect(plain.title).toBe('Mon pain');
    expect(plain.content.match(/<h2>/g)).toHaveLength(4);
    // `[` is neutralised (a shortcode could start with it); WordPress shows it as `[`.
    expect(plain.content).toContain('&#91;fr]');
    expect(plain.content).toContain(OFFLINE_NOTICE);
    expect(plain.content).not.toContain('<strong>');
    const bold = await writeArticle(model, { ...request, h2Count: 10, needBold: true });
    expect(bold.content.match(/<h2>/g)).toHaveLength(10);
    expect(bold.content).toContain('<strong>sourdough bread</strong>');
    expect(bold.title).toBe('Sourdough bread: a practical guide');
    expect(await writeArticle(model, request)).toEqual(await writeArticle(model, request));
  });
});

describe('writeArticle', () => {
  const model = (sectionHtml: string, headings = 2): ArticleModel => ({
    providerModel: 'fake',
    outline: async () => ({
      outline: {
        title: 'A <b>title</b> &amp; more',
        headings: Array.from({ length: headings }, (_, i) => `H${i}`),
      },
      usage: { promptTokens: 1, completionTokens: 2 },
    }),
    write: async () => ({ html: sectionHtml, usage: { promptTokens: 3, completionTokens: 4 } }),
    meta: async () => ({
      meta: goodMeta('sourdough bread'),
      usage: { promptTokens: 5, completionTokens: 6 },
    }),
  });

  it('sanitises the model output to the allow-list and keeps H2s ours alone', async () => {
    const written = await writeArticle(
      model(
        '<h1>Big</h1><h2>Sub</h2><p onclick="x()">Hi <b>bold</b> <img src=x onerror=alert(1)><script>evil()</script><a href="javascript:alert(1)">js</a> <a href="https://ok.example/" target="_blank">ok</a></p><table><tr><td>cell</td></tr></table>',
      ),
      { ...request, h2Count: 2, needBold: true },
    );
    expect(written.title).toBe('A title & more');
    expect(written.content.match(/<h2>/g)).toHaveLength(2);
    expect(written.content).not.toMatch(/<script|onclick|onerror|<img|javascript:|<table|target=/);
    expect(written.content).toContain('<h3>Big</h3>');
    expect(written.content).toContain('<strong>bold</strong>');
    // An external link to no fetched source goes, its text stays (counted).
    expect(written.content).not.toContain('ok.example');
    expect(written.content).toContain(' ok</p>');
    expect(written.seo.externalLinksRemoved).toBe(4);
    // outline twice (the keyword is in no heading), intro twice (nor in the first paragraph), 2 sections, conclusion, meta
    expect(written.usage).toEqual({ promptTokens: 2 * 1 + 5 * 3 + 5, completionTokens: 2 * 2 + 5 * 4 + 6 });
  });

  it('escapes headings once and keeps titles as plain text', async () => {
    const written = await writeArticle(
      {
        providerModel: 'fake',
        outline: async () => ({
          outline: { title: 'Tips &amp; tricks: A &lt; B', headings: ['A < B & C', '<em>Caf&eacute;</em>'] },
          usage: { promptTokens: 0, completionTokens: 0 },
        }),
        write: async () => ({ html: '<p>x</p>', usage: { promptTokens: 0, completionTokens: 0 } }),
        meta: async () => ({ meta: goodMeta('sourdough bread'), usage: NO_USAGE }),
      },
      { ...request, h2Count: 2 },
    );
    // Decoded once; an angle bracket left in plain text becomes ‹ or › so it can never open a tag.
    expect(written.title).toBe('Tips & tricks: A \u2039 B');
    expect(written.content).toContain('<h2>A \u2039 B &amp; C</h2>');
    expect(written.content).toContain('<h2>Café</h2>');
  });

  it('refuses an outline with the wrong number of headings', async () => {
    await expect(writeArticle(model('<p>x</p>', 3), { ...request, h2Count: 2 })).rejects.toThrow(
      /Expected 2 headings/,
    );
  });

  it('counts words in any script', () => {
    expect(countWords('<p>Hello <strong>big</strong> world</p>')).toBe(3);
    expect(countWords('<p>東京は大きい都市です</p>')).toBeGreaterThan(1);
  });
});

describe('quality gates', () => {
  const keyword = 'sourdough bread';
  const sloppyHtml = [
    '```html',
    '<p>Intro without the topic, with **bold** and *emphasis*.</p>',
    '## A markdown heading',
    '',
    'Some __strong__ text and `code`.',
    '',
    '- first point',
    '- second point',
    '',
    '1. step one',
    '2. step two',
    '<p>### Heading inside a paragraph</p>',
    '<ul><li>- dashed item with **stars**</li></ul>',
    '```',
  ].join('\n');

  /** A model that writes markdown and forgets the keyword; fixed on feedback when `listens`. */
  function sloppyModel(listens: boolean, calls: string[]): ArticleModel {
    return {
      providerModel: 'sloppy',
      outline: async (brief, feedback) => {
        calls.push(`outline${feedback ? '+feedback' : ''}`);
        const fixed = listens && feedback !== undefined;
        return {
          outline: {
            title: fixed ? `**${keyword}** guide` : '# A **great** guide',
            headings: Array.from({ length: brief.h2Count }, (_, index) =>
              fixed && index === 0 ? `## Why ${keyword}` : `## Part *${index + 1}*`,
            ),
          },
          usage: NO_USAGE,
        };
      },
      write: async (_brief, part, feedback) => {
        calls.push(`${part.kind}${feedback ? '+feedback' : ''}`);
        const fixed = listens && feedback !== undefined;
        const html = fixed ? `<p>All about **${keyword}** here.</p>` : sloppyHtml;
        return { html: part.kind === 'conclusion' ? '<p>Wrapping up **now**.</p>' : html, usage: NO_USAGE };
      },
      meta: async (brief, _outline, feedback) => {
        calls.push(`meta${feedback ? '+feedback' : ''}`);
        const fixed = listens && feedback !== undefined;
        return {
          meta: {
            metaDescription: fixed
              ? goodMeta(keyword).metaDescription
              : '**Short** description without the topic.',
            excerpt: 'First sentence. Second sentence. Third sentence.',
            faq: Array.from({ length: brief.faqCount }, (_, index) => ({
              question: `**Question ${index + 1}?**`,
              answer: `- Answer ${index + 1}.`,
            })),
            tags: ['**Baking**', 'bread', 'Baking', 'Flour', 'Water', 'Salt', 'Starter'],
          },
          usage: NO_USAGE,
        };
      },
    };
  }

  const request = {
    keyword: `${keyword}, starter`,
    h2Count: 3,
    aiModel: 'gpt-3.5-turbo' as const,
    language: 'de',
    needBold: false,
    draft: false,
    faqCount: 3,
    tags: ['Bread', 'Home baking'],
    autoTags: true,
  };

  it('turns markdown into HTML, and keeps a keyword-less article after one regeneration with the misses recorded', async () => {
    const calls: string[] = [];
    const written = await writeArticle(sloppyModel(false, calls), request);
    expect(calls.filter((call) => call.endsWith('+feedback')).sort()).toEqual([
      'introduction+feedback',
      'meta+feedback',
      'outline+feedback',
    ]);
    const html = written.content;
    expect(findMarkdown(html)).toEqual([]);
    expect(html).not.toMatch(/\*\*|__|```|(^|>)\s*#|(^|>)\s*- |`/m);
    expect(html).toContain('<h3>A markdown heading</h3>');
    expect(html).toContain('<ul>\n<li>first point</li>');
    expect(html).toContain('<ol>\n<li>step one</li>');
    expect(html).toContain('<h3>Heading inside a paragraph</h3>');
    expect(html).toContain('<em>emphasis</em>');
    expect(html).not.toContain('<strong>');
    expect(html).toContain('<li>dashed item with stars</li>');
    // Exactly h2_count sections plus the FAQ's H2 in the article's language, an H3 per question.
    expect(html.match(/<h2>/g)).toHaveLength(4);
    expect(html).toContain('<h2>Häufig gestellte Fragen</h2>\n<h3>Question 1?</h3>\n<p>Answer 1.</p>');
    expect(html.match(/<h3>Question \d\?<\/h3>/g)).toHaveLength(3);
    // The same introduction written for every section is said once.
    expect(html.match(/Intro without the topic/g)).toHaveLength(1);
    expect(written.title).toBe('A great guide');
    expect(written.seo).toEqual({
      metaDescription: 'Short description without the topic.',
      excerpt: 'First sentence. Second sentence.',
      focusKeyword: keyword,
      faq: [1, 2, 3].map((n) => ({ question: `Question ${n}?`, answer: `Answer ${n}.` })),
      tags: ['Bread', 'Home baking', 'Baking', 'Flour', 'Water', 'Salt'],
      qualityWarnings: [
        'keyword_missing_in_title',
        'keyword_missing_in_h2',
        'keyword_missing_in_first_paragraph',
        'keyword_missing_in_meta_description',
        'meta_description_too_short',
      ],
    });
  });

  it('uses the regenerated parts when they pass, and records nothing', async () => {
    const calls: string[] = [];
    const written = await writeArticle(sloppyModel(true, calls), request);
    expect(written.seo.qualityWarnings).toEqual([]);
    expect(written.title).toBe('sourdough bread guide');
    expect(written.content).toMatch(/^<p>All about sourdough bread here\.<\/p>/);
    expect(written.content).toContain('<h2>Why sourdough bread</h2>');
    expect(written.seo.metaDescription).toBe(goodMeta(keyword).metaDescription);
    expect(calls.filter((call) => call.endsWith('+feedback'))).toHaveLength(3);
  });

  it("keeps the client's meta description and title as given, and writes no FAQ when none is asked", async () => {
    const calls: string[] = [];
    const written = await writeArticle(sloppyModel(true, calls), {
      ...request,
      faqCount: 0,
      autoTags: false,
      title: 'My own title',
      metaDescription: 'Mine.',
    });
    expect(written.title).toBe('My own title');
    expect(written.seo.metaDescription).toBe('Mine.');
    expect(written.seo.faq).toEqual([]);
    expect(written.seo.tags).toEqual(['Bread', 'Home baking']);
    expect(written.content.match(/<h2>/g)).toHaveLength(3);
    expect(written.seo.qualityWarnings).toEqual([
      'keyword_missing_in_title',
      'keyword_missing_in_meta_description',
      'meta_description_too_short',
    ]);
  });

  it('cuts a long meta description at a word, within 160 characters', async () => {
    const long = `${keyword} `.repeat(20);
    const written = await writeArticle(
      {
        ...new OfflineArticleModel(),
        providerModel: 'long',
        outline: (brief) => new OfflineArticleModel().outline(brief),
        write: (brief, part) => new OfflineArticleModel().write(brief, part),
        meta: async () => ({ meta: { ...goodMeta(keyword), metaDescription: long }, usage: NO_USAGE }),
      },
      { ...request, faqCount: 0 },
    );
    expect(written.seo.metaDescription.length).toBeLessThanOrEqual(160);
    expect(written.seo.metaDescription.length).toBeGreaterThanOrEqual(120);
    expect(written.seo.metaDescription.endsWith('bread')).toBe(true);
  });

  it('fails like a model error when the FAQ stays short after the regeneration', async () => {
    const model = sloppyModel(false, []);
    await expect(
      writeArticle({ ...model, meta: async () => ({ meta: goodMeta(keyword), usage: NO_USAGE }) }, request),
    ).rejects.toThrow(/Expected 3 FAQ pairs/);
  });

  it('the offline writer passes every gate, with a FAQ and tags', async () => {
    const written = await writeArticle(new OfflineArticleModel(), request);
    expect(written.seo.qualityWarnings).toEqual([]);
    expect(written.seo.metaDescription.length).toBeGreaterThanOrEqual(120);
    expect(written.seo.metaDescription.length).toBeLessThanOrEqual(160);
    expect(written.seo.faq).toHaveLength(3);
    expect(written.seo.tags).toEqual(['Bread', 'Home baking', 'sourdough bread', 'starter', 'offline draft']);
    expect(written.content.match(/<h2>/g)).toHaveLength(4);
  });
});
