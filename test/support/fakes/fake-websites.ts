/** Websites (with their URL guards) and categories in memory, as the DynamoDB repositories keep them. */

import type { CategoryLookup, WebsiteLookup } from '../../../functions/core/articles/ports';
import type {
  LoginAttemptCounter,
  LoginAttemptReservation,
  LoginAttemptStore,
} from '../../../functions/core/websites/login-failures';
import {
  type CategoryStore,
  DuplicateWebsiteUrlError,
  type WebsiteHealth,
  type WebsitePage,
  type WebsiteStore,
  type WebsiteWrite,
} from '../../../functions/core/websites/ports';
import type { Category, Website } from '../../../functions/core/websites/website';
import { copy, type InMemoryTables, key } from './tables';

export class FakeWebsiteStore implements WebsiteStore, WebsiteLookup {
  constructor(private readonly tables: InMemoryTables) {}

  async get(accountId: string, websiteUuid: string): Promise<Website | undefined> {
    const website = this.tables.websites.get(key(accountId, websiteUuid));
    return website ? copy(website) : undefined;
  }

  async getMany(accountId: string, websiteUuids: string[]): Promise<Website[]> {
    const found = await Promise.all([...new Set(websiteUuids)].map((uuid) => this.get(accountId, uuid)));
    return found.filter((website): website is Website => website !== undefined);
  }

  async isUrlRegistered(accountId: string, urlIdentity: string): Promise<boolean> {
    return this.tables.urlGuards.has(key(accountId, urlIdentity));
  }

  async create(website: Website, urlIdentity: string): Promise<void> {
    const guard = key(website.accountId, urlIdentity);
    const item = key(website.accountId, website.websiteUuid);
    if (this.tables.urlGuards.has(guard)) throw new DuplicateWebsiteUrlError(website.url);
    if (this.tables.websites.has(item)) throw new Error('The website exists already.');
    this.tables.urlGuards.set(guard, website.websiteUuid);
    this.tables.websites.set(item, { ...copy(website), checkedAt: website.checkedAt ?? website.createdAt });
  }

  async list(accountId: string, page: number, perPage: number): Promise<WebsitePage> {
    const websites = [...this.tables.websites.values()]
      .filter((website) => website.accountId === accountId)
      .sort((a, b) => `${b.createdAt}#${b.websiteUuid}`.localeCompare(`${a.createdAt}#${a.websiteUuid}`));
    return {
      items: websites.slice((page - 1) * perPage, page * perPage).map(copy),
      total: websites.length,
    };
  }

  async delete(accountId: string, websiteUuid: string): Promise<Website | undefined> {
    const item = key(accountId, websiteUuid);
    const website = this.tables.websites.get(item);
    if (!website) return undefined;
    this.tables.websites.delete(item);
    for (const [guard, uuid] of this.tables.urlGuards) {
      if (uuid === websiteUuid && guard.startsWith(`${accountId}/`)) this.tables.urlGuards.delete(guard);
    }
    return copy(website);
  }

  async updateCredentials(
    accountId: string,
    websiteUuid: string,
    credentials: { login: string; passwordCiphertext: string; passwordContextVersion: number },
    health: WebsiteHealth,
  ): Promise<WebsiteWrite | undefined> {
    return this.assign(accountId, websiteUuid, { ...definedOnly(health), ...credentials });
  }

  async replacePasswordCiphertext(
    accountId: string,
    websiteUuid: string,
    replacement: { passwordCiphertext: string; passwordContextVersion: number },
    previousCiphertext: string,
  ): Promise<boolean> {
    const website = this.tables.websites.get(key(accountId, websiteUuid));
    if (website?.passwordCiphertext !== previousCiphertext) return false;
    Object.assign(website, replacement);
    return true;
  }

  async recordHealth(
    accountId: string,
    websiteUuid: string,
    health: WebsiteHealth,
  ): Promise<WebsiteWrite | undefined> {
    return this.assign(accountId, websiteUuid, definedOnly(health));
  }

  private assign(accountId: string, websiteUuid: string, fields: Partial<Website>): WebsiteWrite | undefined {
    const website = this.tables.websites.get(key(accountId, websiteUuid));
    if (!website) return undefined;
    const before = copy(website);
    Object.assign(website, fields);
    return { before, after: copy(website) };
  }

  async listDueForCheck(checkedBefore: string, limit: number): Promise<Website[]> {
    return [...this.tables.websites.values()]
      .filter((website) => (website.checkedAt ?? website.createdAt) < checkedBefore)
      .sort((a, b) => (a.checkedAt ?? '').localeCompare(b.checkedAt ?? ''))
      .slice(0, limit)
      .map(copy);
  }
}

export class FakeCategoryStore implements CategoryStore, CategoryLookup {
  constructor(private readonly tables: InMemoryTables) {}

  async get(websiteUuid: string, categoryUuid: string): Promise<Category | undefined> {
    const category = this.tables.categories.get(key(websiteUuid, categoryUuid));
    return category ? copy(category) : undefined;
  }

  async getMany(keys: { websiteUuid: string; categoryUuid: string }[]): Promise<Category[]> {
    const found = await Promise.all(keys.map((k) => this.get(k.websiteUuid, k.categoryUuid)));
    return found.filter((category): category is Category => category !== undefined);
  }

  async listAll(websiteUuid: string): Promise<Category[]> {
    return [...this.tables.categories.values()].filter((c) => c.websiteUuid === websiteUuid).map(copy);
  }

  async putAll(categories: Category[]): Promise<void> {
    for (const category of categories) {
      this.tables.categories.set(key(category.websiteUuid, category.categoryUuid), copy(category));
    }
  }

  async deleteMany(websiteUuid: string, categoryUuids: string[]): Promise<void> {
    for (const categoryUuid of categoryUuids) this.tables.categories.delete(key(websiteUuid, categoryUuid));
  }
}

function definedOnly<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Login failures in memory, with the windows of the DynamoDB store. */
/** The Dynamo store's rules in memory: all counters or none, attempts younger than the window. */
export class FakeLoginFailureStore implements LoginAttemptStore {
  private readonly counters = new Map<string, Map<string, number>>();

  async reserve(
    counters: LoginAttemptCounter[],
    attemptId: string,
    now: Date,
    windowMs: number,
  ): Promise<LoginAttemptReservation> {
    const since = now.getTime() - windowMs;
    for (const counter of counters) {
      const times = [...(this.counters.get(counter.key)?.values() ?? [])].filter((at) => at > since).sort();
      if (times.length >= counter.limit) {
        const oldest = times[times.length - counter.limit] ?? now.getTime();
        return { granted: false, counter, attempts: times.length, freeAt: new Date(oldest + windowMs) };
      }
    }
    for (const counter of counters) {
      const attempts = this.counters.get(counter.key) ?? new Map<string, number>();
      attempts.set(attemptId, now.getTime());
      this.counters.set(counter.key, attempts);
    }
    return { granted: true };
  }

  async release(keys: string[], attemptId: string): Promise<void> {
    for (const key of keys) this.counters.get(key)?.delete(attemptId);
  }
}
