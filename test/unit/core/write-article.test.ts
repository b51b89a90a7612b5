import { OFFLINE_NOTICE, OfflineArticleModel } from '../../../functions/adapters/model/offline-article-model';
import type { ArticleModel } from '../../../functions/core/articles/article-model';
import { countWords, writeArticle } from '../../../functions/core/articles/write-article';

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
    expect(written.content).toContain('<a href="https://ok.example/">ok</a>');
    expect(written.usage).toEqual({ promptTokens: 1 + 4 * 3, completionTokens: 2 + 4 * 4 });
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
