/** The site index (core/websites/site-index.ts) against the fakes: builds, refreshes, cap, old plugins. */

import { SiteCallError } from '../../../functions/core/errors';
import {
  addPublishedPost,
  freshSiteIndex,
  MAX_INDEXED_POSTS,
  refreshSiteIndex,
  refreshWebsiteIndex,
  registerWebsiteIndex,
  showIndexedWebsite,
} from '../../../functions/core/websites/site-index';
import { createFakes, type Fakes, sitePost } from '../../support/fakes';

function indexDeps(fakes: Fakes) {
  const { websites, cipher, siteIndex, indexSource, clock } = fakes;
  return { websites, cipher, siteIndex, indexSource, clock };
}

async function setUp(postCount = 3) {
  const fakes = createFakes();
  const accountId = await fakes.account(100);
  const website = await fakes.website(accountId);
  fakes.indexSource.posts = Array.from({ length: postCount }, (_, index) => sitePost(index + 1));
  return { fakes, accountId, website };
}

const ids = async (fakes: Fakes, websiteUuid: string) =>
  (await fakes.siteIndex.list(websiteUuid)).map((post) => post.postId).sort((a, b) => Number(a) - Number(b));

describe('refreshing the site index', () => {
  it('builds the index of the published posts only, and counts them', async () => {
    const { fakes, website } = await setUp(3);
    fakes.indexSource.posts.push(sitePost(4, { status: 'draft' }), sitePost(5, { status: 'private' }));
    const { state, complete } = await refreshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000 });
    expect(complete).toBe(true);
    expect(state).toMatchObject({ supported: true, postsIndexed: 3, indexedAt: fakes.clock().toISOString() });
    expect(await ids(fakes, website.websiteUuid)).toEqual(['1', '2', '3']);
  });

  it('then asks only for what changed since the newest modification, and drops posts that left publish', async () => {
    const { fakes, website } = await setUp(3);
    await refreshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000 });
    const cursor = fakes.indexSource.posts[2]?.modifiedAt;
    fakes.indexSource.queries.length = 0;
    fakes.time.advance(2 * 3600_000);
    fakes.indexSource.posts[0] = { ...sitePost(1), status: 'draft', modifiedAt: '2026-02-01T00:00:00.000Z' };
    fakes.indexSource.posts.push(sitePost(9, { modifiedAt: '2026-02-02T00:00:00.000Z', title: 'New' }));
    const { state } = await refreshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000 });
    expect(fakes.indexSource.queries[0]?.modifiedAfter).toBe(cursor);
    expect(await ids(fakes, website.websiteUuid)).toEqual(['2', '3', '9']);
    expect(state.postsIndexed).toBe(3);
    expect(state.modifiedCursor).toBe('2026-02-02T00:00:00.000Z');
  });

  it('stops a large build at its time budget, and the next refresh goes on from the next page', async () => {
    const { fakes, website } = await setUp(250);
    const deps = indexDeps(fakes);
    // Each page takes a second of the fake clock.
    const source = fakes.indexSource;
    const original = source.indexPage.bind(source);
    source.indexPage = async (site, query) => {
      fakes.time.advance(1000);
      return original(site, query);
    };
    const first = await refreshSiteIndex(deps, website, { budgetMs: 1500 });
    expect(first.complete).toBe(false);
    expect(first.state.fullBuild?.nextPage).toBe(3);
    expect(first.state.postsIndexed).toBe(200);
    const second = await refreshSiteIndex(deps, website, { budgetMs: 10_000 });
    expect(second.complete).toBe(true);
    expect(second.state.postsIndexed).toBe(250);
    expect(second.state.fullBuild).toBeUndefined();
    expect(source.queries.map((query) => query.page)).toEqual([1, 2, 3]);
  });

  it('a full build again after a week removes posts deleted for good (which no incremental refresh reports)', async () => {
    const { fakes, website } = await setUp(3);
    await refreshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000 });
    fakes.indexSource.posts.splice(1, 1);
    fakes.time.advance(2 * 3600_000);
    await refreshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000 });
    expect(await ids(fakes, website.websiteUuid)).toEqual(['1', '2', '3']);
    fakes.time.advance(8 * 24 * 3600_000);
    const { state } = await refreshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000 });
    expect(await ids(fakes, website.websiteUuid)).toEqual(['1', '3']);
    expect(state.postsIndexed).toBe(2);
  });

  it(`keeps the ${MAX_INDEXED_POSTS} most recently modified posts of a larger site`, async () => {
    const { fakes, website } = await setUp(0);
    fakes.indexSource.posts = Array.from({ length: MAX_INDEXED_POSTS + 150 }, (_, index) =>
      sitePost(index + 1),
    );
    const { state } = await refreshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000_000 });
    expect(state.postsIndexed).toBe(MAX_INDEXED_POSTS);
    const kept = await ids(fakes, website.websiteUuid);
    expect(kept).toHaveLength(MAX_INDEXED_POSTS);
    // The oldest (lowest ids: earliest modification) are the ones left out.
    expect(kept[0]).toBe('151');
    // Incremental additions beyond the cap push the oldest out.
    fakes.time.advance(2 * 3600_000);
    fakes.indexSource.posts.push(sitePost(30_000, { modifiedAt: '2027-01-01T00:00:00.000Z' }));
    const after = await refreshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000 });
    expect(after.state.postsIndexed).toBe(MAX_INDEXED_POSTS);
    const now = await ids(fakes, website.websiteUuid);
    expect(now).toContain('30000');
    expect(now).not.toContain('151');
  });

  it('marks a site whose plugin is older than 1.5 as unsupported, without failing', async () => {
    const { fakes, website } = await setUp(3);
    fakes.indexSource.legacy = true;
    const { state } = await refreshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000 });
    expect(state).toMatchObject({ supported: false, postsIndexed: 0 });
    expect(await freshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000 })).toBeUndefined();
  });
});

describe('the index a generation uses', () => {
  it('is refreshed first when older than an hour, and used as stored when the site is down', async () => {
    const { fakes, website } = await setUp(2);
    const deps = indexDeps(fakes);
    const first = await freshSiteIndex(deps, website, { budgetMs: 10_000 });
    expect(first?.posts).toHaveLength(2);
    fakes.indexSource.queries.length = 0;
    fakes.time.advance(30 * 60_000);
    await freshSiteIndex(deps, website, { budgetMs: 10_000 });
    expect(fakes.indexSource.queries).toHaveLength(0);
    fakes.time.advance(31 * 60_000);
    fakes.indexSource.failNext = 1;
    const stale = await freshSiteIndex(deps, website, { budgetMs: 10_000 });
    expect(fakes.indexSource.queries).toHaveLength(1);
    expect(stale?.posts).toHaveLength(2);
  });

  it('gains a post Inkpress publishes at once, counted once however often it is published', async () => {
    const { fakes, website } = await setUp(2);
    await refreshSiteIndex(indexDeps(fakes), website, { budgetMs: 10_000 });
    const post = { ...sitePost(50, { focusKeyword: 'rye bread' }) };
    await addPublishedPost(fakes.siteIndex, website.websiteUuid, post, fakes.clock());
    await addPublishedPost(fakes.siteIndex, website.websiteUuid, post, fakes.clock());
    expect((await fakes.siteIndex.getState(website.websiteUuid))?.postsIndexed).toBe(3);
    expect(
      (await fakes.siteIndex.list(website.websiteUuid)).find((p) => p.postId === '50')?.focusKeyword,
    ).toBe('rye bread');
  });
});

describe('the website record and the refresh route', () => {
  it('website show carries posts_indexed and indexed_at (0 and null before a build)', async () => {
    const { fakes, accountId, website } = await setUp(2);
    const before = await showIndexedWebsite(fakes, accountId, website.websiteUuid);
    expect(before.data).toMatchObject({ posts_indexed: 0, indexed_at: null, index_supported: 1 });
    const refreshed = await refreshWebsiteIndex(indexDeps(fakes), accountId, website.websiteUuid);
    expect(refreshed.data).toMatchObject({
      posts_indexed: 2,
      indexed_at: '2026-03-01 10:00:00',
      index_complete: 1,
    });
    const after = await showIndexedWebsite(fakes, accountId, website.websiteUuid);
    expect(after.data).toMatchObject({ posts_indexed: 2, indexed_at: '2026-03-01 10:00:00' });
  });

  it('registration builds the index, and a site that fails it is still registered', async () => {
    const { fakes, website } = await setUp(2);
    const site = { url: website.url, login: 'inkpress', password: 'secret' };
    const record = await registerWebsiteIndex(indexDeps(fakes), website, fakes.clock(), site);
    expect(record.data.posts_indexed).toBe(2);
    const other = await fakes.website(website.accountId);
    fakes.indexSource.failNext = 1;
    const failed = await registerWebsiteIndex(indexDeps(fakes), other, fakes.clock(), site);
    expect(failed.data).toMatchObject({ posts_indexed: 0, indexed_at: null });
  });

  it('the refresh of a website whose login is flagged does not call the site', async () => {
    const { fakes, accountId, website } = await setUp(2);
    await fakes.websites.recordHealth(accountId, website.websiteUuid, { loginIsUnauthorized: true });
    await expect(
      refreshWebsiteIndex(indexDeps(fakes), accountId, website.websiteUuid),
    ).rejects.toBeInstanceOf(SiteCallError);
    expect(fakes.indexSource.queries).toHaveLength(0);
  });

  it('the refresh of a site that cannot be reached is a SiteCallError', async () => {
    const { fakes, accountId, website } = await setUp(2);
    fakes.indexSource.failNext = 1;
    await expect(refreshWebsiteIndex(indexDeps(fakes), accountId, website.websiteUuid)).rejects.toMatchObject(
      {
        kind: 'unavailable',
      },
    );
  });
});
