/**
 * Property tests over the hostile-text corpus: whatever a client sends as keyword or title and
 * whatever a model writes, the stored text and the article HTML hold nothing that can run.
 */
import fc from 'fast-check';
import { Parser } from 'htmlparser2';
import type { ArticleModel } from '../../../functions/core/articles/article-model';
import { createArticleSchema } from '../../../functions/core/articles/create-article-input';
import { writeArticle } from '../../../functions/core/articles/write-article';
import { sanitizeArticleHtml, textToHtml } from '../../../functions/core/html-safety';
import { plainText, safeText } from '../../../functions/core/text';
import { createWebsiteSchema } from '../../../functions/core/websites/create-website';
import {
  executableFindings,
  HOSTILE_CORPUS,
  hostileText,
  plainTextFindings,
} from '../../support/hostile-text';

const RUNS = { numRuns: 300 };

/** Closing tags that do not close the innermost open element, and elements left open. */
function unclosedOrStray(html: string): string[] {
  const open: string[] = [];
  const problems: string[] = [];
  for (const [, slash, name] of html.matchAll(/<(\/?)([a-z0-9]+)[^>]*>/g)) {
    if (slash === '') open.push(name ?? '');
    else if (open.at(-1) === name) open.pop();
    else problems.push(`</${name}>`);
  }
  return [...problems, ...open.map((name) => `<${name}>`)];
}

/** The text a browser shows for an HTML fragment. */
function shownText(html: string): string {
  let text = '';
  const parser = new Parser({ ontext: (part) => (text += part) }, { decodeEntities: true });
  parser.end(html);
  return text;
}

describe('plain text', () => {
  it('is markup-free, well-formed and free of control characters for any input', () => {
    fc.assert(
      fc.property(hostileText, (input) => {
        expect(plainTextFindings(plainText(input))).toEqual([]);
      }),
      RUNS,
    );
  });

  it('decodes entities exactly once', () => {
    expect(plainText('&lt;script&gt;alert(1)&lt;/script&gt;')).toBe(
      '\u2039script\u203Aalert(1)\u2039/script\u203A',
    );
    expect(plainText('&amp;lt;b&amp;gt;')).toBe('&lt;b&gt;');
    expect(plainText('tom &amp; <b>jerry</b>')).toBe('tom & jerry');
    expect(plainText('<script>alert(1)</script>caf&eacute;')).toBe('café');
  });

  it('reads text without `<` or `&` as the parser does, without loading it', () => {
    const withoutMarkup = fc
      .string({ unit: 'binary', maxLength: 60 })
      .map((text) => text.replace(/[<&]/g, ''));
    fc.assert(
      fc.property(withoutMarkup, (input) => {
        expect(plainText(input)).toBe(safeText(shownText(input)));
      }),
      RUNS,
    );
    expect(plainText('caf\u00e9 > tea\r\n"x"')).toBe('caf\u00e9 \u203A tea "x"');
  });

  it('is stable: making safe text safe again changes nothing', () => {
    fc.assert(
      fc.property(hostileText, (input) => {
        const once = plainText(input);
        expect(safeText(once)).toBe(once);
      }),
      RUNS,
    );
  });

  it('becomes HTML that shows exactly that text and runs nothing', () => {
    fc.assert(
      fc.property(hostileText, (input) => {
        const text = plainText(input);
        const html = textToHtml(text);
        expect(shownText(html)).toBe(text);
        expect(executableFindings(`<p>${html}</p>`)).toEqual([]);
      }),
      RUNS,
    );
  });
});

describe('create input', () => {
  const valid = { keyword: 'bread', h2_count: '3', ai_model: 'gpt-3.5-turbo', language: 'en' };

  it('either refuses a hostile keyword or title on that field, or keeps it as safe plain text', () => {
    fc.assert(
      fc.property(hostileText, hostileText, (keyword, title) => {
        const result = createArticleSchema().safeParse({ ...valid, keyword, title });
        if (!result.success) {
          const fields = new Set(result.error.issues.map((issue) => issue.path.join('.')));
          for (const field of fields) expect(['keyword', 'title']).toContain(field);
          return;
        }
        expect(plainTextFindings(result.data.keyword)).toEqual([]);
        expect(plainTextFindings(result.data.title ?? '')).toEqual([]);
      }),
      RUNS,
    );
  });

  it.each([
    ['a lone high surrogate', 'bread \uD800'],
    ['a lone low surrogate', '\uDC00 bread'],
    ['NUL', 'bread\u0000'],
    ['BEL', 'bread\u0007'],
    ['ESC', '\u001B[31mbread'],
    ['DEL', 'bread\u007F'],
    ['a C1 control', 'bread\u0085'],
  ])('refuses %s in every text field of article create, naming the field', (_label, bad) => {
    for (const field of ['keyword', 'title', 'language', 'ai_model']) {
      const result = createArticleSchema().safeParse({ ...valid, [field]: bad });
      expect(result.success).toBe(false);
      expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([field]);
    }
    const withWebsite = { ...valid, website_uuid: '7f1c7a3e-9d52-4c1e-8d8a-1f5e2b3c4d5e' };
    for (const field of ['website_uuid', 'category_uuid', 'publish_at']) {
      const result = createArticleSchema().safeParse({ ...withWebsite, [field]: bad });
      expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([field]);
    }
  });

  it.each([
    ['a zero-width space', '\u200B'],
    ['joiners and direction marks', '\u200C\u200D\u200E\u200F'],
    ['a BOM and a word joiner among spaces', ' \uFEFF \u2060 '],
    ['a soft hyphen', '\u00AD'],
    ['a right-to-left override', '\u202E'],
    ['Hangul fillers and a braille blank', '\u3164\u115F\u2800'],
    ['an entity of a zero-width space', '&#8203;'],
    ['a variation selector', '\uFE0F'],
    ['combining marks with no letter', ' \u0301\u0308 '],
  ])('refuses a keyword of nothing visible (%s) as missing', (_label, invisible) => {
    const result = createArticleSchema().safeParse({ ...valid, keyword: invisible });
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['keyword', 'The keyword field is required.'],
    ]);
  });

  it.each(['bread,\u200B', 'bread, &#8203;', 'bread,\uFE0F'])(
    'refuses a keyword list with an invisible keyword (%j) as holding an empty one',
    (keyword) => {
      const result = createArticleSchema().safeParse({ ...valid, keyword });
      expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
        ['keyword', 'The keyword field may not contain empty keywords.'],
      ]);
    },
  );

  it('keeps a letter with its combining accent, and spacing marks, as visible text', () => {
    expect(createArticleSchema().parse({ ...valid, keyword: 'cafe\u0301' }).keyword).toBe('cafe\u0301');
    expect(safeText('\u0903')).toBe('\u0903');
  });

  it.each([
    ['NUL', '&#0;'],
    ['NUL without a semicolon', 'a&#0 b'],
    ['a surrogate', '&#xD800;'],
    ['a code point past U+10FFFF', '&#x110000;'],
    ['U+FFFD itself', '&#65533;'],
  ])(
    'refuses a character reference to %s (it decodes to U+FFFD) in every plain-text field',
    (_label, ref) => {
      for (const field of ['keyword', 'title', 'meta_description', 'tags']) {
        const result = createArticleSchema().safeParse({ ...valid, [field]: `bread ${ref}` });
        expect(result.error?.issues.map((issue) => [String(issue.path[0]), issue.message])).toEqual([
          [field, expect.stringContaining('may not contain a character reference to U+FFFD')],
        ]);
      }
    },
  );

  it.each([
    ['SOH', '&#1;'],
    ['DEL', '&#x7f;'],
    ['a C1 control', '&#x81;'],
  ])('refuses a character reference to a control character (%s), as the character itself', (_label, ref) => {
    for (const field of ['keyword', 'title', 'meta_description', 'tags']) {
      const result = createArticleSchema().safeParse({ ...valid, [field]: `bread${ref}` });
      expect(result.error?.issues.map((issue) => [String(issue.path[0]), issue.message])).toEqual([
        [field, expect.stringContaining('may not contain control characters')],
      ]);
    }
    // Line breaks, as references too, stay whitespace where the field allows them.
    expect(createArticleSchema().parse({ ...valid, keyword: 'bread&#10;flour' }).keyword).toBe('bread flour');
  });

  it('keeps format characters inside visible text (a zero-width non-joiner is part of Persian words)', () => {
    const result = createArticleSchema().parse({ ...valid, keyword: 'می\u200Cخواهم' });
    expect(result.keyword).toBe('می\u200Cخواهم');
  });

  it('accepts tab and line breaks in keyword and title (whitespace) but nowhere else', () => {
    const result = createArticleSchema().parse({ ...valid, keyword: 'bread,\r\n\tflour', title: 'A\ntitle' });
    expect(result).toMatchObject({ keyword: 'bread, flour', title: 'A title' });
    expect(createArticleSchema().safeParse({ ...valid, language: 'en\n' }).success).toBe(false);
  });

  it.each([
    ['url', 'https://blog.example.com/\u0000'],
    ['login', 'editor\uD800'],
    ['login', 'editor\t'],
    ['password', 'secret\u001B'],
    ['password', 'secret\nline'],
  ])('refuses bad Unicode or a control character in the website %s', (field, bad) => {
    const result = createWebsiteSchema.safeParse({
      url: 'https://blog.example.com',
      login: 'editor',
      password: 'secret',
      [field]: bad,
    });
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([field]);
  });
});

describe('model output', () => {
  const usage = { promptTokens: 1, completionTokens: 1 };
  const hostileModel = (title: string, headings: string[], html: string[]): ArticleModel => ({
    providerModel: 'fake',
    outline: async () => ({ outline: { title, headings }, usage }),
    write: async (_brief, part) => ({
      html: html[(part.kind === 'section' ? part.index + 1 : 0) % html.length] ?? '',
      usage,
    }),
    meta: async () => ({
      meta: {
        metaDescription: title,
        excerpt: title,
        faq: [{ question: title, answer: title }],
        tags: [title],
      },
      usage,
    }),
  });
  const request = {
    keyword: 'bread',
    h2Count: 3,
    aiModel: 'gpt-3.5-turbo' as const,
    language: 'en',
    needBold: true,
    draft: false,
  };

  it('gives a safe title, exactly h2_count H2s and HTML that runs nothing, whatever the model writes', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileText,
        fc.array(
          hostileText.map((heading) => `${heading} x`),
          { minLength: 3, maxLength: 3 },
        ),
        fc.array(hostileText, { minLength: 1, maxLength: 5 }),
        async (title, headings, html) => {
          const written = await writeArticle(hostileModel(`${title} t`, headings, html), request).catch(
            (error: Error) => error,
          );
          // An outline that is nothing but markup is refused like any malformed model answer.
          if (written instanceof Error) {
            expect(written.name).toBe('Error');
            expect(written.message).toMatch(/headings|empty title/);
            return;
          }
          expect(plainTextFindings(written.title)).toEqual([]);
          expect(executableFindings(written.content)).toEqual([]);
          expect(written.content.match(/<h2>/g)).toHaveLength(3);
        },
      ),
      { numRuns: 150 },
    );
  });

  it.each(HOSTILE_CORPUS.map((entry) => [entry]))('neutralises %j in a section', (entry) => {
    const html = sanitizeArticleHtml(`<p>${entry}</p>${entry}`, { needBold: true });
    expect(executableFindings(html)).toEqual([]);
  });

  it('keeps what is safe: links, emphasis, bold, and brackets shown as brackets', () => {
    const html = sanitizeArticleHtml(
      '<p>See <a href="https://ok.example/a[1]">this</a> [gallery] <b>now</b> <em>x</em></p>',
      { needBold: true },
    );
    expect(html).toBe(
      '<p>See <a href="https://ok.example/a%5B1%5D">this</a> &#91;gallery] <strong>now</strong> <em>x</em></p>',
    );
    expect(shownText(html)).toBe('See this [gallery] now x');
  });

  it('percent-encodes what a link target may not carry into WordPress: comments, tags, quotes, spaces', () => {
    // Was: `<!-- wp:html -->` inside an href reached the site raw, where kses split the tag at it.
    const html = sanitizeArticleHtml(
      `<p><a href="https://example.com/?<!-- wp:html -->">a</a> <a href="https://example.com/?q='x' \`y\`\u2028z">b</a></p>`,
      { needBold: false },
    );
    expect(html).toBe(
      '<p><a href="https://example.com/?%3C!--%20wp:html%20--%3E">a</a> <a href="https://example.com/?q=%27x%27%20%60y%60%E2%80%A8z">b</a></p>',
    );
    expect(html).not.toMatch(/<!--/);
  });

  it('reads a link target as a browser does before encoding it: ends trimmed, line breaks and tabs dropped', () => {
    const html = sanitizeArticleHtml(
      '<p><a href=" https://example.com/a ">a</a> <a href="https://example.com/very-\nlong">b</a> <a href="java\tscript:alert(1)">c</a></p>',
      { needBold: false },
    );
    expect(html).toBe(
      '<p><a href="https://example.com/a">a</a> <a href="https://example.com/very-long">b</a> <a>c</a></p>',
    );
  });

  it('closes every element it opens, with or without bold, whatever the model writes', () => {
    // Was: without bold, `<strong>…<b></pre></b>…<a>…</a></strong>` came out with a stray
    // `</span>` where the link's `</a>` belonged, leaving the link open for the rest of the post.
    const reported =
      '<h2><strong><<b href="https://x.test/"></pre></b>> <a href="//evil">1 < 2</a><table></table></strong><p>x</p></h2>';
    expect(sanitizeArticleHtml(reported, { needBold: false })).toBe(
      '<h3>&lt;&gt; <a>1 &lt; 2</a><p>x</p></h3>',
    );
    fc.assert(
      fc.property(fc.array(hostileText, { minLength: 1, maxLength: 6 }), fc.boolean(), (parts, needBold) => {
        expect(unclosedOrStray(sanitizeArticleHtml(parts.join(''), { needBold }))).toEqual([]);
      }),
      RUNS,
    );
  });

  it('drops style attributes without parsing CSS (postcss is not bundled, and would throw here)', () => {
    const html = sanitizeArticleHtml(
      '<p style="color:red;background:url(javascript:x)">a <em style="x">b</em> <a href="https://ok.example/" style="y">c</a></p>',
      { needBold: false },
    );
    expect(html).toBe('<p>a <em>b</em> <a href="https://ok.example/">c</a></p>');
  });

  it('keeps the words a dropped line break separated apart', () => {
    expect(
      sanitizeArticleHtml('<p>Line one<br>Line two<BR/>three<br class="x" />four</p>', { needBold: false }),
    ).toBe('<p>Line one Line two three four</p>');
  });
});
