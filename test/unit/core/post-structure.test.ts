import type { Article } from '../../../functions/core/articles/article';
import { postStructure, splitSections } from '../../../functions/core/publishing/post-structure';

describe('the structured post', () => {
  it('cuts the HTML at its H2 headings, headings as plain text', () => {
    expect(
      splitSections(
        '<p>Intro</p>\n<h2>A &amp; B</h2>\n<p>One</p><h3>Sub</h3>\n<h2>Two</h2><ul><li>x</li></ul>',
      ),
    ).toEqual({
      introHtml: '<p>Intro</p>',
      sections: [
        { heading: 'A & B', html: '<p>One</p><h3>Sub</h3>' },
        { heading: 'Two', html: '<ul><li>x</li></ul>' },
      ],
    });
    expect(splitSections('<p>Only</p>')).toEqual({ introHtml: '<p>Only</p>', sections: [] });
  });

  it('sends the FAQ (the last H2 section of the HTML) as data, with the SEO fields', () => {
    const article = {
      keyword: 'rye bread, flour',
      language: 'fr',
      content: '<p>Intro</p><h2>One</h2><p>x</p><h2>Questions fréquentes</h2><h3>Q?</h3><p>A.</p>',
      seo: {
        metaDescription: 'Desc',
        excerpt: 'Ex.',
        focusKeyword: 'rye bread',
        faq: [{ question: 'Q?', answer: 'A.' }],
        tags: ['Bread'],
        qualityWarnings: [],
      },
    } as unknown as Article;
    expect(postStructure(article)).toEqual({
      introHtml: '<p>Intro</p>',
      sections: [{ heading: 'One', html: '<p>x</p>' }],
      faq: { heading: 'Questions fréquentes', items: [{ question: 'Q?', answer: 'A.' }] },
      language: 'fr',
      metaDescription: 'Desc',
      focusKeyword: 'rye bread',
      excerpt: 'Ex.',
      tags: ['Bread'],
    });
    const older = { ...article, seo: undefined } as Article;
    expect(postStructure(older)).toMatchObject({
      focusKeyword: 'rye bread',
      tags: [],
      sections: expect.any(Array),
    });
    expect(postStructure(older).sections).toHaveLength(2);
    expect(postStructure(older).faq).toBeUndefined();
  });
});
