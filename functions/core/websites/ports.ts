/** What the website use cases need from storage. */

import type { SiteAccess, SiteObstacle } from './cms-client';
import type {
  IndexedPost,
  IndexedPostRecord,
  SiteIndexPage,
  SiteIndexQuery,
  SiteIndexState,
} from './site-index';
import type { SiteProfile } from './site-profile';
import type { Category, Website } from './website';

/** Flags and bookkeeping a health check or a publication attempt changes on a website. */
export interface WebsiteHealth {
  loginIsUnauthorized?: boolean;
  isUnreachable?: boolean;
  /** ISO time of the last check of the site. */
  checkedAt?: string;
  categoriesCount?: number;
  /** The site's time zone from the plugin's status answer (null: none valid reported). */
  timezone?: string | null;
}

/**
 * A website as one write found it and as that write left it. Its health flags are exact (the
 * write holds only on the flags it found, or returns them atomically); other counters may be a
 * moment old when the store records health events (it reads, then writes on the flags).
 */
export interface WebsiteWrite {
  before: Website;
  after: Website;
}

export interface WebsitePage {
  items: Website[];
  total: number;
}

/** The same URL registered twice by one account (possibly by two concurrent requests). */
export class DuplicateWebsiteUrlError extends Error {
  override readonly name = 'DuplicateWebsiteUrlError';
}

export interface WebsiteStore {
  get(accountId: string, websiteUuid: string): Promise<Website | undefined>;
  /** Whether the account already registered a site with this URL identity (see `siteUrlIdentity`). */
  isUrlRegistered(accountId: string, urlIdentity: string): Promise<boolean>;
  /** Stores the website and its URL guard together; DuplicateWebsiteUrlError when the guard exists. */
  create(website: Website, urlIdentity: string): Promise<void>;
  /** The account's websites, newest first; `page` counts from 1. */
  list(accountId: string, page: number, perPage: number): Promise<WebsitePage>;
  /** Removes the website and its URL guard; returns what was removed, undefined if nothing was there. */
  delete(accountId: string, websiteUuid: string): Promise<Website | undefined>;
  /**
   * Stores new credentials (login and password ciphertext) with the health they were checked
   * with; undefined when the website was deleted meanwhile.
   */
  updateCredentials(
    accountId: string,
    websiteUuid: string,
    credentials: { login: string; passwordCiphertext: string; passwordContextVersion: number },
    health: WebsiteHealth,
  ): Promise<WebsiteWrite | undefined>;
  /**
   * Replaces the password ciphertext (same password, newer encryption context) only while the
   * stored one is still `previousCiphertext`; false when it changed meanwhile or the website is gone.
   */
  replacePasswordCiphertext(
    accountId: string,
    websiteUuid: string,
    replacement: { passwordCiphertext: string; passwordContextVersion: number },
    previousCiphertext: string,
  ): Promise<boolean>;
  /** Updates flags and check bookkeeping; does nothing (undefined) for a website deleted meanwhile. */
  recordHealth(
    accountId: string,
    websiteUuid: string,
    health: WebsiteHealth,
  ): Promise<WebsiteWrite | undefined>;
  /** Websites (of any account) not checked since `checkedBefore`, at most `limit`. */
  listDueForCheck(checkedBefore: string, limit: number): Promise<Website[]>;
}

export interface CategoryStore {
  get(websiteUuid: string, categoryUuid: string): Promise<Category | undefined>;
  /** Every category of a website, in no particular order. */
  listAll(websiteUuid: string): Promise<Category[]>;
  /** Creates or replaces these categories. */
  putAll(categories: Category[]): Promise<void>;
  deleteMany(websiteUuid: string, categoryUuids: string[]): Promise<void>;
}

/** Website profiles (site-profile.ts), one per website, kept with the account's websites. */
export interface SiteProfileStore {
  /** The website's profile; undefined when none was stored. */
  get(accountId: string, websiteUuid: string): Promise<SiteProfile | undefined>;
  /** Stores (replaces) the profile while its website exists; false when the website is gone. */
  put(profile: SiteProfile): Promise<boolean>;
}

export type { SiteObstacle } from './cms-client';

/** Which of the two headers that carry the login reached PHP on the site, as the plugin saw them. */
export interface LoginHeaders {
  authorization: boolean;
  /** X-Inkpress-Authorization, the plugin's fallback for hosts that strip Authorization. */
  custom: boolean;
}

/** The plugin as its anonymous probe route found it. */
export type PluginProbe =
  | { kind: 'plugin'; version: string; headers: LoginHeaders }
  /** Its namespace answers but the probe route does not: a plugin before 1.5.0 (version unknown). */
  | { kind: 'plugin_without_probe' }
  | { kind: 'obstacle'; obstacle: SiteObstacle };

/** Who WordPress core says an application password logs in as (`/wp/v2/users/me?context=edit`). */
export type CoreUserProbe =
  | { kind: 'user'; login: string; roles: string[]; capabilities: string[] }
  /** Core refused the password (or did not see it): nothing is known of the user. */
  | { kind: 'refused' }
  | { kind: 'obstacle'; obstacle: SiteObstacle };

/** The connection doctor's requests to a site (through the SSRF guard), each bounded by `timeoutMs`. */
export interface ConnectionProbes {
  /** The plugin's probe route, without a login (and its namespace when the route is missing). */
  probePlugin(url: string, timeoutMs: number): Promise<PluginProbe>;
  /** WordPress core's own answer to who the user is; only ever sent an application password. */
  coreUser(site: SiteAccess, timeoutMs: number): Promise<CoreUserProbe>;
}

/** A website's index of its published posts (site-index.ts), one item per post plus its state. */
export interface SiteIndexStore {
  /** Where the index stands; undefined before its first build. */
  getState(websiteUuid: string): Promise<SiteIndexState | undefined>;
  putState(state: SiteIndexState): Promise<void>;
  /** Creates or replaces these posts, marked seen at `seenAt` (ISO). */
  upsert(websiteUuid: string, posts: IndexedPost[], seenAt: string): Promise<void>;
  /** Creates or replaces one post; true when the index did not hold it. */
  add(websiteUuid: string, post: IndexedPost, seenAt: string): Promise<boolean>;
  /** Removes these posts (by site post id); unknown ids are ignored. */
  remove(websiteUuid: string, postIds: string[]): Promise<void>;
  /** Every post of the index, in no particular order. */
  list(websiteUuid: string): Promise<IndexedPostRecord[]>;
  /** Removes the whole index of a website (its posts and state). */
  removeAll(websiteUuid: string): Promise<void>;
}

/** The plugin's index route (plugin 1.5 and later). */
export interface SiteIndexSource {
  /**
   * One page of the site's index, most recently modified first; with `modifiedAfter`, only posts
   * modified since (inclusive), including those that left `publish` (status other than `publish`).
   * Undefined when the site's plugin has no index route (before 1.5).
   */
  indexPage(site: SiteAccess, query: SiteIndexQuery): Promise<SiteIndexPage | undefined>;
}
