/**
 * The DynamoDB tables, defined once: the CDK stack and the local runtime both create
 * tables from these definitions, and repositories read their names from `envVar`.
 */
export type AttributeType = 'S' | 'N';

export interface KeyAttribute {
  name: string;
  type: AttributeType;
}

export interface IndexDefinition {
  indexName: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
}

export interface TableDefinition {
  /** Construct id in the stack and suffix of the local table name. */
  id: string;
  /** Environment variable that carries the table name to the functions. */
  envVar: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  globalIndexes?: IndexDefinition[];
  timeToLiveAttribute?: string;
}

export const ARTICLE_INDEX = {
  /** Sparse: only generated articles carry `generatedSeq` (dense 1..n per account). */
  generated: 'generated',
  /** Sparse: only articles not generated yet carry `queueSortKey`. */
  queue: 'queue',
  /** Sparse: articles the sweeper must look at again (`sweepBucket`, due at `sweepAt`). */
  sweep: 'sweep',
} as const;

export const WEBSITE_INDEX = {
  /** Sparse: website items (not URL guard items) carry `listSortKey`. */
  byCreation: 'byCreation',
  /**
   * Sparse: website items carry `checkShard` (one of a few values, from the uuid), sorted by
   * `checkedAt`, so the health check queries each shard for the websites checked longest ago.
   */
  dueForCheck: 'dueForCheck',
} as const;

export const WEBHOOK_INDEX = {
  /** Sparse: events not yet fanned out and deliveries pending, due for the sweeper at `sweepAt`. */
  sweep: 'sweep',
} as const;

export const BATCH_INDEX = {
  /** Sparse: batch items (not their stored requests) carry `listSortKey`, newest last. */
  byCreation: 'byCreation',
  /** Sparse: batches not completed, due for the sweeper at `sweepAt` (writes to finish, completion). */
  sweep: 'sweep',
} as const;

export const tableDefinitions = {
  accounts: {
    id: 'Accounts',
    envVar: 'ACCOUNTS_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
  },
  apiTokens: {
    id: 'ApiTokens',
    envVar: 'API_TOKENS_TABLE',
    partitionKey: { name: 'tokenHash', type: 'S' },
  },
  dailyUsage: {
    id: 'DailyUsage',
    envVar: 'DAILY_USAGE_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
    sortKey: { name: 'day', type: 'S' },
    timeToLiveAttribute: 'expiresAt',
  },
  usageDays: {
    id: 'UsageDays',
    envVar: 'USAGE_DAYS_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
    sortKey: { name: 'day', type: 'S' },
  },
  websites: {
    id: 'Websites',
    envVar: 'WEBSITES_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
    sortKey: { name: 'websiteKey', type: 'S' },
    globalIndexes: [
      {
        indexName: WEBSITE_INDEX.byCreation,
        partitionKey: { name: 'accountId', type: 'S' },
        sortKey: { name: 'listSortKey', type: 'S' },
      },
      {
        indexName: WEBSITE_INDEX.dueForCheck,
        partitionKey: { name: 'checkShard', type: 'S' },
        sortKey: { name: 'checkedAt', type: 'S' },
      },
    ],
  },
  categories: {
    id: 'Categories',
    envVar: 'CATEGORIES_TABLE',
    partitionKey: { name: 'websiteUuid', type: 'S' },
    sortKey: { name: 'categoryUuid', type: 'S' },
  },
  /**
   * Each website's index of its published posts (core/websites/site-index.ts): `entryKey` is
   * `post#<site post id>` for a post, `state` for where the index stands.
   */
  siteIndex: {
    id: 'SiteIndex',
    envVar: 'SITE_INDEX_TABLE',
    partitionKey: { name: 'websiteUuid', type: 'S' },
    sortKey: { name: 'entryKey', type: 'S' },
  },
  rateLimits: {
    id: 'RateLimits',
    envVar: 'RATE_LIMITS_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
    timeToLiveAttribute: 'expiresAt',
  },
  articles: {
    id: 'Articles',
    envVar: 'ARTICLES_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
    sortKey: { name: 'articleUuid', type: 'S' },
    globalIndexes: [
      {
        indexName: ARTICLE_INDEX.generated,
        partitionKey: { name: 'accountId', type: 'S' },
        sortKey: { name: 'generatedSeq', type: 'N' },
      },
      {
        indexName: ARTICLE_INDEX.queue,
        partitionKey: { name: 'accountId', type: 'S' },
        sortKey: { name: 'queueSortKey', type: 'S' },
      },
      {
        indexName: ARTICLE_INDEX.sweep,
        partitionKey: { name: 'sweepBucket', type: 'S' },
        sortKey: { name: 'sweepAt', type: 'S' },
      },
    ],
  },
  webhooks: {
    id: 'Webhooks',
    envVar: 'WEBHOOKS_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
    sortKey: { name: 'itemKey', type: 'S' },
    globalIndexes: [
      {
        indexName: WEBHOOK_INDEX.sweep,
        partitionKey: { name: 'sweepBucket', type: 'S' },
        sortKey: { name: 'sweepAt', type: 'S' },
      },
    ],
    timeToLiveAttribute: 'expiresAt',
  },
  /**
   * Batches of creates (core/articles/batch.ts): `batchKey` is `batch#<uuid>` for the batch, and
   * `batch#<uuid>#requests#<n>` for its items' requests, kept until every article is written.
   */
  batches: {
    id: 'Batches',
    envVar: 'BATCHES_TABLE',
    partitionKey: { name: 'accountId', type: 'S' },
    sortKey: { name: 'batchKey', type: 'S' },
    globalIndexes: [
      {
        indexName: BATCH_INDEX.byCreation,
        partitionKey: { name: 'accountId', type: 'S' },
        sortKey: { name: 'listSortKey', type: 'S' },
      },
      {
        indexName: BATCH_INDEX.sweep,
        partitionKey: { name: 'sweepBucket', type: 'S' },
        sortKey: { name: 'sweepAt', type: 'S' },
      },
    ],
  },
  /**
   * Powertools idempotency records of the `Idempotency-Key` header, under the attribute names
   * its DynamoDB persistence layer uses by default (`id`, TTL in `expiration`).
   */
  idempotency: {
    id: 'Idempotency',
    envVar: 'IDEMPOTENCY_TABLE',
    partitionKey: { name: 'id', type: 'S' },
    timeToLiveAttribute: 'expiration',
  },
} as const satisfies Record<string, TableDefinition>;

export type TableName = keyof typeof tableDefinitions;
