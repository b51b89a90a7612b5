/** Internal links (core/articles/internal-links.ts): every rule, with hostile model output. */
import {
  anchorPhrases,
  findPhrase,
  LinkCandidates,
  linkTargets,
  placeInternalLinks,
  relatedTopics,
  spreadOrder,
} from '../../../functions/core/articles/internal-links';
import { comparableText } from '../../../functions/core/articles/same-topic';
import type { IndexedPost } from '../../../functions/core/websites/site-index';

const SITE = 'https://blog.example.com';

function post(id: number, title: string, fields: Partial<IndexedPost> = {}): IndexedPost {
  return {
    postId: String(id),
    url: `${SITE}/p${id}/`,
    title,
    excerpt: '',
    focusKeyword: '',
    categories: [],
    modifiedAt: '2026-01-01T00:00:00.000Z',
    noindex: false,
    ...fields,
  };
}

const POSTS = [
  post(1, 'Rye flour basics', { focusKeyword: 'rye flour' }),
  post(2, 'Feeding a sourdough starter'),
  post(3, 'Baking stones compared', { focusKeyword: 'baking stone' }),
  post(4, 'Hydration explained for home bakers'),
  post(5, 'Proofing baskets and how to use them', { focusKeyword: 'proofing basket' }),
];

const place = (parts: string[], max: number, posts = POSTS, ownFocusKeyword = 'sourdough bread') =>
  placeInternalLinks(parts, new LinkCandidates(linkTargets(posts)), { max, siteUrl: SITE, ownFocusKeyword });

describe('placing internal links', () => {
  it('links phrases of the paragraphs to the matching posts, one per target and per paragraph, anchors distinct', () => {
    const parts = [
      '<p>Good sourdough bread starts with rye flour and a lively starter.</p><p>Rye flour again, here.</p>',
      '<h3>Tools</h3><p>A baking stone holds heat; a proofing basket shapes the loaf.</p><p>Feeding a sourdough starter daily keeps it strong.</p>',
      '<p>Hydration explained simply: more water, more open crumb.</p>',
    ];
    const { parts: linked, links } = place(parts, 4);
    expect(links).toHaveLength(4);
    expect(new Set(links.map((link) => link.postId)).size).toBe(4);
    expect(new Set(links.map((link) => link.anchor.toLowerCase())).size).toBe(4);
    const html = linked.join('\n');
    for (const link of links) {
      expect(html).toContain(`<a href="${link.url}">${link.anchor}</a>`);
      // The anchor is a phrase of the paragraph itself.
      expect(parts.join(' ')).toContain(link.anchor);
    }
    // At most one link per paragraph.
    for (const paragraph of html.match(/<p>[\s\S]*?<\/p>/g) ?? []) {
      expect((paragraph.match(/<a /g) ?? []).length).toBeLessThanOrEqual(1);
    }
    expect(html).not.toMatch(/<h3>[^<]*<a /);
  });

  it('spreads the links over the whole article, not the first parts only', () => {
    const parts = POSTS.map(
      (target) => `<p>Some words, then ${target.title.toLowerCase()} and more words.</p>`,
    );
    const { links } = place(parts, 3);
    expect(links.map((link) => link.postId)).toEqual(['1', '3', '5']);
  });

  it('removes the links the model wrote to the site (absolute, www, relative), keeping their text; other hosts stay', () => {
    const parts = [
      '<p>See <a href="https://blog.example.com/made-up-post/">our made-up guide</a> and <a href="https://www.blog.example.com/p2/">the starter</a>.</p>',
      '<p>Also <a href="/invented/">this</a> and <a href="https://en.wikipedia.org/wiki/Bread">bread on Wikipedia</a>.</p>',
      '<h3><a href="https://blog.example.com/p1/">Rye flour basics</a></h3><p>Nothing to link here.</p>',
    ];
    const { parts: linked, links, removed } = place(parts, 0);
    expect(removed).toBe(4);
    expect(links).toEqual([]);
    const html = linked.join('');
    expect(html).toContain('See our made-up guide and the starter.');
    expect(html).toContain(
      'Also this and <a href="https://en.wikipedia.org/wiki/Bread">bread on Wikipedia</a>.',
    );
    expect(html).toContain('<h3>Rye flour basics</h3>');
  });

  it('never links in a heading, a list or a quote, only in paragraphs', () => {
    const parts = ['<h3>Rye flour basics</h3><ul><li>rye flour</li></ul><blockquote>rye flour</blockquote>'];
    expect(place(parts, 3).links).toEqual([]);
  });

  it('never links a noindex post', () => {
    const posts = [post(1, 'Rye flour basics', { focusKeyword: 'rye flour', noindex: true })];
    expect(place(['<p>About rye flour.</p>'], 3, posts).links).toEqual([]);
  });

  it('never uses a generic anchor ("click here") nor the article\'s own focus keyword', () => {
    const posts = [
      post(1, 'Click here', { focusKeyword: 'click here' }),
      post(2, 'Sourdough bread', { focusKeyword: 'sourdough bread' }),
    ];
    const { links } = place(['<p>Click here for sourdough bread.</p>'], 3, posts);
    expect(links).toEqual([]);
    expect(anchorPhrases({ title: 'Read more', focusKeyword: 'here' })).toEqual([]);
  });

  it('gives each anchor once, even for two posts with the same words', () => {
    const posts = [
      post(1, 'Rye flour', { focusKeyword: 'rye flour' }),
      post(2, 'Rye flour guide', { focusKeyword: 'rye flour' }),
    ];
    const { links } = place(['<p>Rye flour matters.</p>', '<p>Rye flour matters a lot.</p>'], 2, posts);
    expect(links).toHaveLength(1);
  });

  it('gives offsets right after a letter outside the BMP (two UTF-16 units)', () => {
    const astral = '𐌰𐌱 rye flour';
    const after = findPhrase(astral, 'rye flour');
    expect(after && astral.slice(after.start, after.end)).toBe('rye flour');
  });

  it('finds phrases across entities and accents, never across tags', () => {
    const html = 'Le pain &amp; la crème fraîche';
    const found = findPhrase(html, 'creme fraiche');
    expect(found && html.slice(found.start, found.end)).toBe('crème fraîche');
    const entity = 'Salt &amp; Pepper mills';
    const both = findPhrase(entity, 'salt pepper');
    expect(both && entity.slice(both.start, both.end)).toBe('Salt &amp; Pepper');
    expect(findPhrase('rye <em>flour</em>', 'rye flour')).toBeUndefined();
    expect(findPhrase('ryeflour', 'rye flour')).toBeUndefined();
    // Folded as comparableText folds (the phrases come from it): ß as ss, fullwidth as plain, "+" kept in a word.
    const street = 'Die Straße pflastern';
    const folded = findPhrase(street, comparableText('STRASSE pflastern'));
    expect(folded && street.slice(folded.start, folded.end)).toBe('Straße pflastern');
    const wide = 'Ｃ++ Templates, then salt + pepper';
    const cpp = findPhrase(wide, comparableText('C++ templates'));
    expect(cpp && wide.slice(cpp.start, cpp.end)).toBe('Ｃ++ Templates');
    const salt = findPhrase(wide, comparableText('salt pepper'));
    expect(salt && wide.slice(salt.start, salt.end)).toBe('salt + pepper');
    expect(findPhrase('C# templates', comparableText('C templates'))).toBeUndefined();
    const { parts } = place(['<p>On <em>baking</em> and the Baking Stone.</p>'], 1);
    expect(parts[0]).toBe(
      '<p>On <em>baking</em> and the <a href="https://blog.example.com/p3/">Baking Stone</a>.</p>',
    );
  });
});

describe('choosing candidates', () => {
  it('ranks posts by relevance to the text (BM25 over title, excerpt and focus keyword)', () => {
    const candidates = new LinkCandidates(POSTS);
    expect(candidates.rank('which baking stone to buy')[0]?.postId).toBe('3');
    expect(candidates.rank('starter feeding schedule')[0]?.postId).toBe('2');
  });

  it('suggests related topics spread over the parts, each post once', () => {
    const related = relatedTopics(
      new LinkCandidates(POSTS),
      ['rye flour', 'baking stone', 'proofing basket'],
      2,
    );
    expect(related.flat()).toHaveLength(new Set(related.flat()).size);
    expect(related[0]).toContain('Rye flour basics');
    expect(related[2]).toContain('Proofing baskets and how to use them');
  });

  it('spaces the first round evenly from first to last part', () => {
    expect(spreadOrder(5, 3)).toEqual([0, 2, 4, 1, 3]);
    expect(spreadOrder(4, 1)).toEqual([0, 1, 2, 3]);
    expect(spreadOrder(3, 10)).toEqual([0, 1, 2]);
  });
});
