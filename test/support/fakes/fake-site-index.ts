/**
 * The site index in memory, and a site whose plugin lists its posts (the index route of plugin
 * 1.5) from a list a test edits: `publish`, `draft`, `private`... with their modification times.
 */
import { CmsError, type SiteAccess } from '../../../functions/core/websites/cms-client';
import type { SiteIndexSource, SiteIndexStore } from '../../../functions/core/websites/ports';
import type {
  IndexedPost,
  IndexedPostRecord,
  SiteIndexEntry,
  SiteIndexPage,
  SiteIndexQuery,
  SiteIndexState,
} from '../../../functions/core/websites/site-index';

export class FakeSiteIndexStore implements SiteIndexStore {
  readonly states = new Map<string, SiteIndexState>();
  /** websiteUuid -> postId -> record. */
  readonly posts = new Map<string, Map<string, IndexedPostRecord>>();

  private postsOf(websiteUuid: string): Map<string, IndexedPostRecord> {
    let posts = this.posts.get(websiteUuid);
    if (!posts) {
      posts = new Map();
      this.posts.set(websiteUuid, posts);
    }
    return posts;
  }

  async getState(websiteUuid: string): Promise<SiteIndexState | undefined> {
    const state = this.states.get(websiteUuid);
    return state ? structuredClone(state) : undefined;
  }

  async putState(state: SiteIndexState): Promise<void> {
    this.states.set(state.websiteUuid, structuredClone(state));
  }

  async upsert(websiteUuid: string, posts: IndexedPost[], seenAt: string): Promise<void> {
    for (const post of posts)
      this.postsOf(websiteUuid).set(post.postId, { ...structuredClone(post), seenAt });
  }

  async add(websiteUuid: string, post: IndexedPost, seenAt: string): Promise<boolean> {
    const known = this.postsOf(websiteUuid).has(post.postId);
    await this.upsert(websiteUuid, [post], seenAt);
    return !known;
  }

  async remove(websiteUuid: string, postIds: string[]): Promise<void> {
    for (const postId of postIds) this.postsOf(websiteUuid).delete(postId);
  }

  async list(websiteUuid: string): Promise<IndexedPostRecord[]> {
    return [...this.postsOf(websiteUuid).values()].map((post) => structuredClone(post));
  }

  async removeAll(websiteUuid: string): Promise<void> {
    this.posts.delete(websiteUuid);
    this.states.delete(websiteUuid);
  }
}

/** A post on the fake site: published or not, with its modification time. */
export type FakeSitePost = IndexedPost & { status: string };

/** The plugin's index route over `posts`; `legacy` answers like a plugin before 1.5 (no route). */
export class FakeIndexSource implements SiteIndexSource {
  posts: FakeSitePost[] = [];
  legacy = false;
  readonly queries: SiteIndexQuery[] = [];
  failNext = 0;

  async indexPage(_site: SiteAccess, query: SiteIndexQuery): Promise<SiteIndexPage | undefined> {
    this.queries.push({ ...query });
    if (this.failNext > 0) {
      this.failNext--;
      throw new CmsError('unreachable', 'The site could not be reached');
    }
    if (this.legacy) return undefined;
    const listed = this.posts
      .filter((post) =>
        query.modifiedAfter === undefined
          ? post.status === 'publish'
          : post.modifiedAt >= query.modifiedAfter,
      )
      .sort((a, b) =>
        a.modifiedAt === b.modifiedAt
          ? Number(b.postId) - Number(a.postId)
          : a.modifiedAt < b.modifiedAt
            ? 1
            : -1,
      );
    const start = (query.page - 1) * query.perPage;
    const entries: SiteIndexEntry[] = listed
      .slice(start, start + query.perPage)
      .map((post) =>
        post.status === 'publish'
          ? { ...post, status: 'publish' as const }
          : { status: post.status, postId: post.postId },
      );
    return { entries, totalPages: Math.ceil(listed.length / query.perPage) };
  }
}

/** A published post of the fake site. */
export function sitePost(id: number, fields: Partial<FakeSitePost> = {}): FakeSitePost {
  return {
    postId: String(id),
    url: `https://example.com/post-${id}/`,
    title: `Post ${id}`,
    excerpt: `Excerpt of post ${id}.`,
    focusKeyword: '',
    categories: [],
    modifiedAt: new Date(Date.UTC(2026, 0, 1) + id * 60_000).toISOString(),
    noindex: false,
    status: 'publish',
    ...fields,
  };
}
