/**
 * The site index: each website's published posts and pages as the plugin lists them
 * (`GET inkpress/v1/index`, plugin 1.5), kept per website so that articles can link into the
 * site and a second article on a topic the site covers is refused. Never built by crawling.
 *
 * Refreshing: a full build lists every published post (most recently modified first, at most
 * MAX_INDEXED_POSTS) and removes what it did not see; afterwards, refreshes ask only for what
 * changed since the newest modification seen (`modified_after`), which also reports posts that
 * left `publish`. A full build runs again every FULL_BUILD_EVERY_MS (posts deleted for good are
 * reported by nothing else; the plugin checks every link target when it writes a post anyway).
 * A refresh stops at its time budget and the next one continues the build where it stopped.
 */
import { SiteCallError } from '../errors';
import { toBit, toWireTime } from '../wire';
import { CmsError, type SiteAccess } from './cms-client';
import type { SiteIndexSource, SiteIndexStore, WebsiteStore } from './ports';
import { findWebsite } from './read-websites';
import { type SiteAccessDeps, siteAccessOf } from './site-access';
import { presentWebsite, type Website } from './website';

/** Sites with more posts keep the most recently modified ones (docs/decisions.md). */
export const MAX_INDEXED_POSTS = 20_000;
/** A generation that needs the index refreshes it first when it is older than this. */
export const INDEX_FRESH_MS = 60 * 60_000;
/** How often the index is built again from nothing (removes posts deleted for good). */
export const FULL_BUILD_EVERY_MS = 7 * 24 * 60 * 60_000;
/** The largest page the plugin serves. */
export const INDEX_PAGE_SIZE = 100;

/** A published post or page of the site, as the index keeps it. */
export interface IndexedPost {
  /** Post id on the site. */
  postId: string;
  url: string;
  /** Plain text. */
  title: string;
  /** Plain text, at most 300 characters. */
  excerpt: string;
  /** The focus keyword the site's SEO plugin holds (or Inkpress's own); '' when none. */
  focusKeyword: string;
  categories: string[];
  /** ISO time (UTC) of the last modification on the site. */
  modifiedAt: string;
  /** An SEO plugin marks it noindex: never a link target. */
  noindex: boolean;
}

/** An indexed post and when the index last saw it on the site. */
export interface IndexedPostRecord extends IndexedPost {
  seenAt: string;
}

/** An entry of the plugin's index route: a published post, or one that left `publish`. */
export type SiteIndexEntry = ({ status: 'publish' } & IndexedPost) | { status: string; postId: string };

export interface SiteIndexQuery {
  page: number;
  perPage: number;
  /** ISO time (UTC), inclusive. */
  modifiedAfter?: string;
}

export interface SiteIndexPage {
  entries: SiteIndexEntry[];
  totalPages: number;
}

/** Where a website's index stands. */
export interface SiteIndexState {
  websiteUuid: string;
  /** False when the site's plugin has no index route (before 1.5): links and topic check are skipped. */
  supported: boolean;
  /** Last refresh that reached the site (ISO). */
  indexedAt?: string;
  postsIndexed: number;
  /** The newest modification seen on the site (its own clock): where the next refresh starts. */
  modifiedCursor?: string;
  /** When the last complete full build started. */
  fullBuiltAt?: string;
  /** A full build under way: when it started and the next page to read. */
  fullBuild?: { startedAt: string; nextPage: number; seen: number };
}

export interface SiteIndexDeps extends SiteAccessDeps {
  siteIndex: SiteIndexStore;
  indexSource: SiteIndexSource;
  clock: () => Date;
}

export interface RefreshOutcome {
  state: SiteIndexState;
  /** False when the time budget ended a full build before its last page (the next refresh goes on). */
  complete: boolean;
}

/**
 * Brings a website's index up to date (see the module comment); stops at `budgetMs` (a page
 * under way is finished). Failures of the site call are thrown (CmsError), and what was stored
 * before them stays.
 */
export async function refreshSiteIndex(
  deps: SiteIndexDeps,
  website: Website,
  options: { budgetMs: number; site?: SiteAccess },
): Promise<RefreshOutcome> {
  const started = deps.clock();
  const deadline = started.getTime() + options.budgetMs;
  const site = options.site ?? (await siteAccessOf(deps, website));
  const previous = await deps.siteIndex.getState(website.websiteUuid);
  const base: SiteIndexState = previous ?? {
    websiteUuid: website.websiteUuid,
    supported: true,
    postsIndexed: 0,
  };
  const needsFullBuild =
    base.fullBuild !== undefined ||
    base.fullBuiltAt === undefined ||
    started.getTime() - Date.parse(base.fullBuiltAt) >= FULL_BUILD_EVERY_MS;
  const outcome = needsFullBuild
    ? await fullBuild(deps, site, base, started, deadline)
    : await incremental(deps, site, base, started, deadline);
  if (outcome === 'unsupported') {
    const state: SiteIndexState = {
      ...base,
      supported: false,
      indexedAt: started.toISOString(),
    };
    delete state.fullBuild;
    await deps.siteIndex.putState(state);
    return { state, complete: true };
  }
  const posts = await deps.siteIndex.list(website.websiteUuid);
  const kept = await keepMostRecent(deps.siteIndex, website.websiteUuid, posts);
  const state: SiteIndexState = {
    ...outcome.state,
    supported: true,
    postsIndexed: kept,
    indexedAt: started.toISOString(),
  };
  await deps.siteIndex.putState(state);
  return { state, complete: outcome.complete };
}

type BuildOutcome = { state: SiteIndexState; complete: boolean } | 'unsupported';

async function fullBuild(
  deps: SiteIndexDeps,
  site: SiteAccess,
  base: SiteIndexState,
  now: Date,
  deadline: number,
): Promise<BuildOutcome> {
  const build = base.fullBuild ?? { startedAt: now.toISOString(), nextPage: 1, seen: 0 };
  let cursor = base.fullBuild ? base.modifiedCursor : undefined;
  let { nextPage: page, seen } = build;
  for (;;) {
    const result = await deps.indexSource.indexPage(site, { page, perPage: INDEX_PAGE_SIZE });
    if (result === undefined) return 'unsupported';
    const published = publishedOf(result.entries).slice(0, MAX_INDEXED_POSTS - seen);
    await deps.siteIndex.upsert(base.websiteUuid, published, build.startedAt);
    seen += published.length;
    cursor = newest(cursor, published);
    const last = page >= result.totalPages || result.entries.length === 0 || seen >= MAX_INDEXED_POSTS;
    if (last) {
      // What the build did not see is no longer published (or beyond the cap).
      const stale = (await deps.siteIndex.list(base.websiteUuid))
        .filter((post) => post.seenAt < build.startedAt)
        .map((post) => post.postId);
      await deps.siteIndex.remove(base.websiteUuid, stale);
      const state: SiteIndexState = { ...base, fullBuiltAt: build.startedAt };
      delete state.fullBuild;
      if (cursor !== undefined) state.modifiedCursor = cursor;
      return { state, complete: true };
    }
    page += 1;
    if (deps.clock().getTime() >= deadline) {
      return {
        state: {
          ...base,
          fullBuild: { startedAt: build.startedAt, nextPage: page, seen },
          ...(cursor !== undefined ? { modifiedCursor: cursor } : {}),
        },
        complete: false,
      };
    }
  }
}

async function incremental(
  deps: SiteIndexDeps,
  site: SiteAccess,
  base: SiteIndexState,
  now: Date,
  deadline: number,
): Promise<BuildOutcome> {
  let cursor = base.modifiedCursor;
  const since = cursor ?? '1970-01-01T00:00:00Z';
  for (let page = 1; ; page++) {
    const result = await deps.indexSource.indexPage(site, {
      page,
      perPage: INDEX_PAGE_SIZE,
      modifiedAfter: since,
    });
    if (result === undefined) return 'unsupported';
    const published = publishedOf(result.entries);
    await deps.siteIndex.upsert(base.websiteUuid, published, now.toISOString());
    const gone = result.entries.filter((entry) => entry.status !== 'publish').map((entry) => entry.postId);
    if (gone.length > 0) await deps.siteIndex.remove(base.websiteUuid, gone);
    cursor = newest(cursor, published);
    if (page >= result.totalPages || result.entries.length === 0) break;
    // Unfinished: the next refresh asks again from the same cursor (pages read are upserted again).
    if (deps.clock().getTime() >= deadline) {
      return { state: base, complete: false };
    }
  }
  return { state: { ...base, ...(cursor !== undefined ? { modifiedCursor: cursor } : {}) }, complete: true };
}

function publishedOf(entries: SiteIndexEntry[]): IndexedPost[] {
  return entries
    .filter((entry): entry is { status: 'publish' } & IndexedPost => entry.status === 'publish')
    .map(({ status: _status, ...post }) => post);
}

function newest(cursor: string | undefined, posts: IndexedPost[]): string | undefined {
  let latest = cursor;
  for (const post of posts) if (latest === undefined || post.modifiedAt > latest) latest = post.modifiedAt;
  return latest;
}

/** Removes the least recently modified posts beyond MAX_INDEXED_POSTS; returns how many stay. */
async function keepMostRecent(
  store: SiteIndexStore,
  websiteUuid: string,
  posts: IndexedPost[],
): Promise<number> {
  if (posts.length <= MAX_INDEXED_POSTS) return posts.length;
  const oldest = [...posts]
    .sort((a, b) => (a.modifiedAt < b.modifiedAt ? 1 : a.modifiedAt > b.modifiedAt ? -1 : 0))
    .slice(MAX_INDEXED_POSTS)
    .map((post) => post.postId);
  await store.remove(websiteUuid, oldest);
  return MAX_INDEXED_POSTS;
}

/**
 * The index as a generation needs it: refreshed first when older than INDEX_FRESH_MS (or never
 * built), within `budgetMs`. A site that cannot be reached leaves the index as it was (the
 * generation uses what is stored); undefined when the site's plugin has no index route.
 */
export async function freshSiteIndex(
  deps: SiteIndexDeps,
  website: Website,
  options: { budgetMs: number },
): Promise<{ posts: IndexedPostRecord[]; state: SiteIndexState } | undefined> {
  let state = await deps.siteIndex.getState(website.websiteUuid);
  const stale =
    state === undefined ||
    state.indexedAt === undefined ||
    state.fullBuild !== undefined ||
    deps.clock().getTime() - Date.parse(state.indexedAt) >= INDEX_FRESH_MS;
  if (stale) {
    try {
      state = (await refreshSiteIndex(deps, website, options)).state;
    } catch {
      // The site is down or refused: what the index holds still serves.
    }
  }
  if (state === undefined || !state.supported) return undefined;
  return { posts: await deps.siteIndex.list(website.websiteUuid), state };
}

/** A post Inkpress just published joins its website's index at once (when the site has one). */
export async function addPublishedPost(
  store: Pick<SiteIndexStore, 'getState' | 'add' | 'putState'>,
  websiteUuid: string,
  post: IndexedPost,
  now: Date,
): Promise<void> {
  const state = await store.getState(websiteUuid);
  if (state === undefined || !state.supported) return;
  const added = await store.add(websiteUuid, post, now.toISOString());
  if (added) await store.putState({ ...state, postsIndexed: state.postsIndexed + 1 });
}

/** `posts_indexed` and `indexed_at` of website show. */
export function indexFields(state: SiteIndexState | undefined) {
  return {
    posts_indexed: state?.postsIndexed ?? 0,
    indexed_at: toWireTime(state?.indexedAt),
  };
}

/** What website show, create and the index refresh say about the index. */
export function presentIndexedWebsite(website: Website, state: SiteIndexState | undefined) {
  const record = presentWebsite(website);
  return {
    ...record,
    data: { ...record.data, ...indexFields(state), index_supported: toBit(state?.supported ?? true) },
  };
}

/** Registration builds the index within what is left of the request's time; a failure waits for the next refresh. */
export async function buildIndexAtRegistration(
  deps: SiteIndexDeps,
  website: Website,
  site: SiteAccess,
  budgetMs: number,
): Promise<SiteIndexState | undefined> {
  try {
    return (await refreshSiteIndex(deps, website, { budgetMs, site })).state;
  } catch {
    return undefined;
  }
}

/** Time one refresh through the API may take (API Gateway answers at 29 s; one site call takes up to 10 s). */
export const API_REFRESH_BUDGET_MS = 12_000;

/**
 * `POST /v1/websites/<uuid>/index/refresh`: the index brought up to date now (a large site's first
 * build goes on at the next refresh or generation when the budget ends it). A login flagged as
 * refused is not sent again; a site that fails is a SiteCallError.
 */
export async function refreshWebsiteIndex(
  deps: SiteIndexDeps & { websites: WebsiteStore },
  accountId: string,
  websiteUuid: string | undefined,
) {
  const website = await findWebsite(deps.websites, accountId, websiteUuid);
  if (website.loginIsUnauthorized) {
    throw new SiteCallError(
      'login_refused',
      'The site refused the stored login (login_is_unauthorized is set), so Inkpress does not send it again: send the credentials with PUT /v1/websites/{website_uuid}/update.',
    );
  }
  let outcome: RefreshOutcome;
  try {
    outcome = await refreshSiteIndex(deps, website, { budgetMs: API_REFRESH_BUDGET_MS });
  } catch (error) {
    if (error instanceof CmsError) {
      throw new SiteCallError(
        error.reason === 'unauthorized' ? 'login_refused' : 'unavailable',
        `The site's index could not be read (${error.reason}: ${error.message}); try again later.`,
      );
    }
    throw error;
  }
  const record = presentIndexedWebsite(website, outcome.state);
  return { ...record, data: { ...record.data, index_complete: toBit(outcome.complete) } };
}

/** Registration starts the index only while this much of the request's time is used at most. */
const REGISTRATION_INDEX_START_BY_MS = 12_000;
/** ...and stops it (after the page under way) this long after the request started. */
const REGISTRATION_INDEX_UNTIL_MS = 15_000;

/**
 * The record a registration answers: the index built first (see `buildIndexAtRegistration`),
 * within the request's time; what is left is built by the next refresh or generation.
 */
export async function registerWebsiteIndex(
  deps: SiteIndexDeps,
  website: Website,
  requestStartedAt: Date,
  site: SiteAccess,
) {
  const used = deps.clock().getTime() - requestStartedAt.getTime();
  const state =
    used <= REGISTRATION_INDEX_START_BY_MS
      ? await buildIndexAtRegistration(deps, website, site, REGISTRATION_INDEX_UNTIL_MS - used)
      : undefined;
  return presentIndexedWebsite(website, state);
}

/** `GET /v1/websites/<uuid>/show`: the website record with its index fields. */
export async function showIndexedWebsite(
  deps: { websites: WebsiteStore; siteIndex: Pick<SiteIndexStore, 'getState'> },
  accountId: string,
  websiteUuid: string | undefined,
) {
  const website = await findWebsite(deps.websites, accountId, websiteUuid);
  return presentIndexedWebsite(website, await deps.siteIndex.getState(website.websiteUuid));
}

/** Time a generation gives the index refresh of its website (it runs beside the outline). */
export const GENERATION_REFRESH_BUDGET_MS = 10_000;

/**
 * The website of an article as its generation sees it (`GenerateArticleDeps.siteLinks`): its URL
 * and its site index, refreshed first when older than an hour; no posts when the site has no
 * index. Undefined when the website is gone.
 */
export async function siteForGeneration(
  deps: SiteIndexDeps & { websites: Pick<WebsiteStore, 'get' | 'replacePasswordCiphertext'> },
  article: { accountId: string; websiteUuid?: string },
): Promise<{ siteUrl: string; posts?: IndexedPost[] } | undefined> {
  if (article.websiteUuid === undefined) return undefined;
  const website = await deps.websites.get(article.accountId, article.websiteUuid);
  if (!website) return undefined;
  const index = website.loginIsUnauthorized
    ? await storedIndex(deps.siteIndex, website.websiteUuid)
    : await freshSiteIndex(deps, website, { budgetMs: GENERATION_REFRESH_BUDGET_MS });
  return { siteUrl: website.url, ...(index ? { posts: index.posts } : {}) };
}

/** The index as stored, without calling the site (a login flagged as refused is not sent). */
async function storedIndex(store: SiteIndexStore, websiteUuid: string) {
  const state = await store.getState(websiteUuid);
  if (state === undefined || !state.supported) return undefined;
  return { posts: await store.list(websiteUuid), state };
}
