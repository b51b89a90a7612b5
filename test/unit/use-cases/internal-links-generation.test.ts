/**
 * Internal links and the topic check at generation, against the fakes: the worker reads the
 * website's site index (refreshed when stale) and the code places the links; a model that
 * invents links, links in headings, drafts, private and noindex posts never end up linked.
 */
import type { ArticleModel } from '../../../functions/core/articles/article-model';
import { presentGeneratedArticle } from '../../../functions/core/articles/article-presenter';
import { createArticle } from '../../../functions/core/articles/create-article';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import { postFor, publishArticle } from '../../../functions/core/publishing/publish-article';
import { siteForGeneration } from '../../../functions/core/websites/site-index';
import type { Website } from '../../../functions/core/websites/website';
import { createFakes, FakeDelivery, type Fakes, sitePost } from '../../support/fakes';
import { articleInput, createDeps, generateDeps, publishDeps } from './helpers';

const SITE_POSTS = (url: string) => [
  sitePost(1, { title: 'Rye flour for bread', focusKeyword: 'rye flour', url: `${url}/rye/` }),
  sitePost(2, {
    title: 'Feeding a sourdough starter',
    focusKeyword: 'starter feeding',
    url: `${url}/feeding/`,
  }),
  sitePost(3, { title: 'Baking stones for bread', focusKeyword: 'baking stones', url: `${url}/stones/` }),
  sitePost(4, { title: 'Proofing baskets guide', focusKeyword: 'proofing baskets', url: `${url}/baskets/` }),
  sitePost(5, { title: 'Scoring bread dough', focusKeyword: 'scoring dough', url: `${url}/scoring/` }),
  sitePost(9, { title: 'Knitting for beginners', focusKeyword: 'knitting', url: `${url}/knitting/` }),
  sitePost(6, { title: 'Secret draft on sourdough crumb', status: 'draft', url: `${url}/?p=6` }),
  sitePost(7, { title: 'Private sourdough notes', status: 'private', url: `${url}/?p=7` }),
  sitePost(8, { title: 'Noindex sourdough tips', noindex: true, url: `${url}/noindex/` }),
];

async function setUp(options: { legacy?: boolean } = {}) {
  const fakes = createFakes();
  const accountId = await fakes.account(100);
  const website = await fakes.website(accountId);
  fakes.indexSource.posts = SITE_POSTS(website.url);
  fakes.indexSource.legacy = options.legacy ?? false;
  return { fakes, accountId, website };
}

function linkDeps(fakes: Fakes) {
  const { websites, cipher, siteIndex, indexSource, clock } = fakes;
  const deps = { websites, cipher, siteIndex, indexSource, clock };
  return {
    ...generateDeps(fakes),
    siteLinks: (article: { accountId: string; websiteUuid?: string }) => siteForGeneration(deps, article),
  };
}

async function generate(
  fakes: Fakes,
  accountId: string,
  website: Website,
  fields: Record<string, unknown> = {},
) {
  const article = await createArticle(
    { ...createDeps(fakes), siteIndex: fakes.siteIndex },
    accountId,
    articleInput({ keyword: 'sourdough bread', h2_count: 4, website_uuid: website.websiteUuid, ...fields }),
  );
  const result = await generateQueuedArticle(linkDeps(fakes), article, new FakeDelivery());
  expect(result.outcome).toBe('generated');
  const stored = fakes.articles.row(article)?.article;
  if (!stored) throw new Error('not stored');
  return stored;
}

const linksIn = (html: string) => [...html.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)];

describe('internal links at generation', () => {
  it('places the links asked for, to published indexed posts only, distinct anchors, in paragraphs', async () => {
    const { fakes, accountId, website } = await setUp();
    const article = await generate(fakes, accountId, website, { internal_links: '4' });
    const shown = presentGeneratedArticle(article, { website }).data;
    expect(shown.internal_links.length).toBeGreaterThanOrEqual(1);
    expect(shown.internal_links.length).toBeLessThanOrEqual(4);
    const allowed = SITE_POSTS(website.url).filter((post) => post.status === 'publish' && !post.noindex);
    for (const link of shown.internal_links) {
      expect(allowed.map((post) => post.url)).toContain(link.url);
      // Never an unrelated post.
      expect(link.url).not.toContain('knitting');
      expect(allowed.find((post) => post.url === link.url)?.postId).toBe(link.post_id);
      expect(shown.content).toContain(`<a href="${link.url}">${link.anchor}</a>`);
    }
    expect(new Set(shown.internal_links.map((link) => link.anchor.toLowerCase())).size).toBe(
      shown.internal_links.length,
    );
    expect(new Set(shown.internal_links.map((link) => link.url)).size).toBe(shown.internal_links.length);
    expect(linksIn(shown.content)).toHaveLength(shown.internal_links.length);
    expect(shown.content).not.toMatch(/<h[23][^>]*>[^<]*<a /);
    // The offline writer mentions the related topics; 4 of them fit.
    expect(shown.internal_links).toHaveLength(4);
    expect(shown.quality_warnings).not.toContain('internal_links_fewer_than_requested');
  });

  it('places none when asked for none, and 3 by default', async () => {
    const { fakes, accountId, website } = await setUp();
    const none = await generate(fakes, accountId, website, { internal_links: '0', keyword: 'rye bread' });
    expect(none.seo?.internalLinks).toEqual([]);
    const byDefault = await generate(fakes, accountId, website, { keyword: 'wheat bread' });
    expect(byDefault.seo?.internalLinks).toHaveLength(3);
  });

  it("removes a hostile model's links to the site (invented, in headings), keeping their text", async () => {
    const { fakes, accountId, website } = await setUp();
    const offline = await fakes.models.modelFor('gpt-3.5-turbo');
    const hostile: ArticleModel = {
      ...offline,
      write: async (brief, part, feedback) => {
        const written = await offline.write(brief, part, feedback);
        return {
          ...written,
          html: `<h3><a href="${website.url}/rye/">Rye flour basics</a></h3><p>See <a href="${website.url}/made-up/">a made-up post</a> and <a href="/relative-made-up/">another</a>.</p>${written.html}`,
        };
      },
    };
    fakes.models.modelFor = async () => hostile;
    const article = await generate(fakes, accountId, website, { internal_links: '2' });
    const content = article.content ?? '';
    expect(content).not.toContain('made-up/');
    expect(content).toContain('See a made-up post and another.');
    expect(content).toContain('<h3>Rye flour basics</h3>');
    const links = linksIn(content);
    expect(links).toHaveLength(2);
    for (const [, url] of links) expect(article.seo?.internalLinks?.map((link) => link.url)).toContain(url);
  });

  it.each([
    [12, 10],
    [6, 6],
  ])(
    'a model that repeats paragraphs in every part: %i topics, %i links in the final text, the warning when short',
    async (count, expected) => {
      const { fakes, accountId, website } = await setUp();
      // Twelve posts on distinct baking topics, and a model that writes the same paragraph about
      // each of them in every part (the copies after the first are dropped as repeats).
      const topics = [
        'Rye flour',
        'Starter feeding',
        'Baking stones',
        'Proofing baskets',
        'Scoring dough',
        'Bread hydration',
        'Dutch ovens',
        'Bread crust',
        'Oven steam',
        'Whole wheat',
        'Autolyse rest',
        'Cold retard',
      ].slice(0, count);
      fakes.indexSource.posts = topics.map((topic, index) =>
        sitePost(index + 1, {
          title: `${topic} for sourdough bread`,
          focusKeyword: topic.toLowerCase(),
          url: `${website.url}/topic-${index + 1}/`,
        }),
      );
      const offline = await fakes.models.modelFor('gpt-3.5-turbo');
      const shared = topics
        .map((topic) => `<p>${topic} matters for every loaf you bake at home.</p>`)
        .join('');
      const repeating: ArticleModel = {
        ...offline,
        write: async (brief, part, feedback) => {
          const written = await offline.write(brief, { ...part, related: [] }, feedback);
          return { ...written, html: `${written.html}${shared}` };
        },
      };
      fakes.models.modelFor = async () => repeating;
      const article = await generate(fakes, accountId, website, { internal_links: '10' });
      const shown = presentGeneratedArticle(article, { website }).data;
      // The shared paragraphs appear once in the final text.
      expect(shown.content.match(/matters for every loaf/g)).toHaveLength(topics.length);
      // Show lists exactly the links of the final content...
      expect(linksIn(shown.content).map(([, url]) => url)).toEqual(
        shown.internal_links.map((link) => link.url),
      );
      // ...placed in paragraphs that survive (ten fit in twelve shared paragraphs, six in six), and
      // the warning whenever fewer than the ten asked for remain.
      expect(shown.internal_links).toHaveLength(expected);
      expect(shown.quality_warnings.includes('internal_links_fewer_than_requested')).toBe(expected < 10);
    },
  );

  it('a plugin before 1.5: no links, a quality warning, nothing fails', async () => {
    const { fakes, accountId, website } = await setUp({ legacy: true });
    const article = await generate(fakes, accountId, website, { internal_links: '4' });
    expect(article.seo?.internalLinks).toEqual([]);
    expect(article.seo?.qualityWarnings).toContain('site_index_unavailable');
  });

  it('a clash found only at generation, on the refreshed index, is a warning (not with allow_same_topic)', async () => {
    const { fakes, accountId, website } = await setUp();
    // The index is built (by the create's check: nothing on "sourdough bread" yet).
    const article = await createArticle(
      { ...createDeps(fakes), siteIndex: fakes.siteIndex },
      accountId,
      articleInput({ keyword: 'sourdough bread', website_uuid: website.websiteUuid }),
    );
    fakes.indexSource.posts.push(
      sitePost(20, { title: 'Sourdough bread', focusKeyword: 'Sourdough Bread', url: `${website.url}/sd/` }),
    );
    await generateQueuedArticle(linkDeps(fakes), article, new FakeDelivery());
    expect(fakes.articles.row(article)?.article.seo?.qualityWarnings).toContain('same_topic_exists');
    const allowed = await generate(fakes, accountId, website, { allow_same_topic: '1' });
    expect(allowed.seo?.qualityWarnings).not.toContain('same_topic_exists');
  });

  it('once published, show lists the links on the site: those the plugin dropped are gone from internal_links and content', async () => {
    const { fakes, accountId, website } = await setUp();
    const article = await generate(fakes, accountId, website, { internal_links: '4' });
    const written = article.seo?.internalLinks ?? [];
    expect(written).toHaveLength(4);
    // Two targets were drafted or trashed since the index was read: the site drops their links.
    const [first, second, ...others] = written;
    if (!first || !second) throw new Error('no links');
    fakes.cms.unpublishedTargets = new Set([first.postId, second.postId]);
    expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
    const published = fakes.articles.row(article)?.article;
    if (!published) throw new Error('not stored');
    const shown = presentGeneratedArticle(published, { website }).data;
    expect(shown.publication?.site).toMatchObject({ internal_links_kept: 2, internal_links_dropped: 2 });
    expect(shown.internal_links).toEqual(
      others.map(({ url, postId, anchor }) => ({ url, post_id: postId, anchor })),
    );
    expect(linksIn(shown.content).map(([, url]) => url)).toEqual(others.map((link) => link.url));
    // The dropped links' text stays, as on the site.
    for (const link of [first, second]) {
      expect(shown.content).not.toContain(`href="${link.url}"`);
      expect(shown.content).toContain(link.anchor);
    }
    // The stored article keeps them: a later publication sends them for the site to check again.
    expect(published.seo?.internalLinks).toEqual(written);
  });

  it('publishing sends the links for the plugin to check, and the post joins the index with its focus keyword', async () => {
    const { fakes, accountId, website } = await setUp();
    const article = await generate(fakes, accountId, website, { internal_links: '2' });
    const post = postFor(article, fakes.clock());
    expect(post.internalLinks).toEqual(
      article.seo?.internalLinks?.map(({ url, postId }) => ({ url, postId })),
    );
    expect(await publishArticle({ ...publishDeps(fakes), siteIndex: fakes.siteIndex }, article)).toBe(
      'published',
    );
    const indexed = await fakes.siteIndex.list(website.websiteUuid);
    const published = fakes.cms.postOf(article.articleUuid);
    expect(indexed.find((entry) => entry.postId === published?.result.cmsId)?.focusKeyword).toBe(
      'sourdough bread',
    );
    // A second create on that keyword is now refused.
    await expect(
      createArticle(
        { ...createDeps(fakes), siteIndex: fakes.siteIndex },
        accountId,
        articleInput({ keyword: 'Sourdough Bread', website_uuid: website.websiteUuid }),
      ),
    ).rejects.toThrow(published?.result.permalink ?? 'missing');
  });
});
