/**
 * The route table and the background functions, defined once: the CDK stack creates one
 * Lambda per entry and the local runtime serves the same handlers from it.
 */
import type { TableName } from './adapters/dynamodb/table-definitions';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * A DynamoDB action a function calls on a table, as IAM names it. The list of each function is
 * what its code sends, adapter by adapter: a transaction needs the action of each of its items
 * (PutItem, UpdateItem, DeleteItem, ConditionCheckItem), BatchWriteItem is its own action, and
 * Query is granted on the table and its indexes. Change it together with the adapters.
 */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'BatchWriteItem'
  | 'ConditionCheckItem';
export type TableAccess = readonly TableAction[];

export interface FunctionAccess {
  /** The tables the function uses (each one's name reaches it as the table's `envVar`) and how. */
  tables: Partial<Record<TableName, TableAccess>>;
  /** Sends messages to the generation queue. */
  sendsToQueue?: boolean;
  /** Consumes the generation queue and sets its deliveries' retry backoff (ChangeMessageVisibility). */
  consumesQueue?: boolean;
  /** Uses the site-password KMS key. */
  sitePasswordKey?: 'encrypt' | 'decrypt' | 'encryptDecrypt';
  /** Reads the language-model API key secret. */
  readsModelSecret?: boolean;
  /** Calls customer WordPress sites (gets a longer timeout). */
  callsCustomerSites?: boolean;
}

export interface FunctionDefinition {
  /** Stable name: construct id in the stack, name in logs. */
  name: string;
  /** Handler file relative to the repository root; it exports `handler`. */
  entry: string;
  access: FunctionAccess;
}

export interface RouteDefinition extends FunctionDefinition {
  methods: HttpMethod[];
  /** API Gateway resource path; `{param}` segments are path parameters. */
  path: string;
}

/** Every route takes a token from its account's bucket (one UpdateItem) before anything else. */
const rateLimited = (
  tables: Partial<Record<TableName, TableAccess>>,
): Partial<Record<TableName, TableAccess>> => ({ rateLimits: ['UpdateItem'], ...tables });

export const routes: RouteDefinition[] = [
  {
    name: 'ListLanguages',
    methods: ['GET'],
    path: '/v1/languages',
    entry: 'functions/api/list-languages.ts',
    access: { tables: rateLimited({}) },
  },
  {
    name: 'ListWebsites',
    methods: ['GET'],
    path: '/v1/websites/list',
    entry: 'functions/api/list-websites.ts',
    access: { tables: rateLimited({ websites: ['Query'] }) },
  },
  {
    name: 'CreateWebsite',
    methods: ['POST'],
    path: '/v1/websites/create',
    entry: 'functions/api/create-website.ts',
    access: {
      // isUrlRegistered; create (a transaction of two puts); categories putAll / deleteMany;
      // the Idempotency-Key record (Powertools: put, get, update, delete on failure).
      tables: rateLimited({
        websites: ['GetItem', 'PutItem'],
        categories: ['BatchWriteItem'],
        idempotency: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      }),
      sitePasswordKey: 'encrypt',
      callsCustomerSites: true,
    },
  },
  {
    name: 'ShowWebsite',
    methods: ['GET'],
    path: '/v1/websites/{website_uuid}/show',
    entry: 'functions/api/show-website.ts',
    access: { tables: rateLimited({ websites: ['GetItem'] }) },
  },
  {
    name: 'UpdateWebsite',
    methods: ['PUT'],
    path: '/v1/websites/{website_uuid}/update',
    entry: 'functions/api/update-website.ts',
    access: {
      // get, updateCredentials; syncCategories; makeDueForWebsite (sweep index, then updates).
      tables: rateLimited({
        websites: ['GetItem', 'UpdateItem'],
        categories: ['Query', 'BatchWriteItem'],
        articles: ['Query', 'UpdateItem'],
      }),
      sitePasswordKey: 'encrypt',
      callsCustomerSites: true,
    },
  },
  {
    name: 'DeleteWebsite',
    methods: ['PUT'],
    path: '/v1/websites/{website_uuid}/delete',
    entry: 'functions/api/delete-website.ts',
    // get, delete (a transaction of two deletes); removeAllCategories.
    access: {
      tables: rateLimited({ websites: ['GetItem', 'DeleteItem'], categories: ['Query', 'BatchWriteItem'] }),
    },
  },
  {
    name: 'ListCategories',
    methods: ['GET'],
    path: '/v1/websites/{website_uuid}/categories',
    entry: 'functions/api/list-categories.ts',
    access: { tables: rateLimited({ websites: ['GetItem'], categories: ['Query'] }) },
  },
  {
    name: 'ListArticles',
    methods: ['GET'],
    path: '/v1/articles/list',
    entry: 'functions/api/list-articles.ts',
    // generatedCount, one page of the generated index, the page's websites and categories.
    access: {
      tables: rateLimited({
        accounts: ['GetItem'],
        articles: ['Query'],
        websites: ['BatchGetItem'],
        categories: ['BatchGetItem'],
      }),
    },
  },
  {
    name: 'ListQueuedArticles',
    methods: ['GET', 'POST'],
    path: '/v1/articles/queue',
    entry: 'functions/api/list-queued-articles.ts',
    access: {
      tables: rateLimited({ articles: ['Query'], websites: ['BatchGetItem'], categories: ['BatchGetItem'] }),
    },
  },
  {
    name: 'ShowArticle',
    methods: ['GET'],
    path: '/v1/articles/{article_uuid}/show',
    entry: 'functions/api/show-article.ts',
    access: {
      tables: rateLimited({
        articles: ['GetItem'],
        websites: ['BatchGetItem'],
        categories: ['BatchGetItem'],
      }),
    },
  },
  {
    name: 'CreateArticle',
    methods: ['POST'],
    path: '/v1/articles/create',
    entry: 'functions/api/create-article.ts',
    access: {
      // The reservation transaction (article put, credits and daily usage updates), the deferred
      // put, the re-read of a retried create, postponeStuckCheck; the website and category check.
      tables: rateLimited({
        accounts: ['GetItem', 'UpdateItem'],
        dailyUsage: ['UpdateItem'],
        articles: ['GetItem', 'PutItem', 'UpdateItem'],
        websites: ['GetItem'],
        categories: ['GetItem'],
        idempotency: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      }),
      sendsToQueue: true,
    },
  },
  {
    name: 'RetryArticle',
    methods: ['POST'],
    path: '/v1/articles/{article_uuid}/retry',
    entry: 'functions/api/retry-article.ts',
    access: {
      // The article; a new reservation (transaction: article update, credits, daily usage) or
      // the publication's requeue; the answer's website and category.
      tables: rateLimited({
        accounts: ['GetItem', 'UpdateItem'],
        dailyUsage: ['UpdateItem'],
        articles: ['GetItem', 'UpdateItem'],
        websites: ['BatchGetItem'],
        categories: ['BatchGetItem'],
      }),
      sendsToQueue: true,
    },
  },
  {
    name: 'CancelArticle',
    methods: ['POST'],
    path: '/v1/articles/{article_uuid}/cancel',
    entry: 'functions/api/cancel-article.ts',
    access: {
      // The cancel-and-refund transaction; the answer's website and category.
      tables: rateLimited({
        accounts: ['UpdateItem'],
        articles: ['GetItem', 'UpdateItem'],
        websites: ['BatchGetItem'],
        categories: ['BatchGetItem'],
      }),
    },
  },
  {
    name: 'ShowAccount',
    methods: ['GET'],
    path: '/v1/account',
    entry: 'functions/api/show-account.ts',
    // The account; today's reservations.
    access: { tables: rateLimited({ accounts: ['GetItem'], dailyUsage: ['GetItem'] }) },
  },
  {
    name: 'AccountUsage',
    methods: ['GET'],
    path: '/v1/account/usage',
    entry: 'functions/api/account-usage.ts',
    // One Query of at most 366 days.
    access: { tables: rateLimited({ usageDays: ['Query'] }) },
  },
  {
    name: 'RefreshCategories',
    methods: ['POST'],
    path: '/v1/websites/{website_uuid}/categories/refresh',
    entry: 'functions/api/refresh-categories.ts',
    access: {
      // The website (read, health flags, a migrated password); syncCategories.
      tables: rateLimited({ websites: ['GetItem', 'UpdateItem'], categories: ['Query', 'BatchWriteItem'] }),
      // Encrypt too: an old password record is re-encrypted bound to its URL on read.
      sitePasswordKey: 'encryptDecrypt',
      callsCustomerSites: true,
    },
  },
];

/** Maps a bearer token to its account; runs before every route. */
export const authorizer: FunctionDefinition = {
  name: 'Authorizer',
  entry: 'functions/api/authorizer.ts',
  access: { tables: { apiTokens: ['GetItem'] } },
};

/** Consumes the generation queue: generates, then publishes. */
export const generationWorker: FunctionDefinition = {
  name: 'GenerationWorker',
  entry: 'functions/worker/generation-worker.ts',
  access: {
    // Generation: complete and fail transactions (article, account, website counters).
    // Publishing: the article, website and category reads, publication updates, recordHealth.
    tables: {
      accounts: ['GetItem', 'UpdateItem'],
      articles: ['GetItem', 'UpdateItem'],
      websites: ['GetItem', 'UpdateItem'],
      categories: ['GetItem'],
      usageDays: ['UpdateItem'],
    },
    consumesQueue: true,
    // Encrypt too: old records are re-encrypted bound to their URL on read (site-access.ts).
    sitePasswordKey: 'encryptDecrypt',
    readsModelSecret: true,
    callsCustomerSites: true,
  },
};

/** Runs on a schedule: deferred reservations, stuck articles, publish retries, site health. */
export const sweeper: FunctionDefinition = {
  name: 'Sweeper',
  entry: 'functions/worker/sweeper.ts',
  access: {
    // The sweep index and the transactions of the reservation and failure steps; publication
    // retries as in the worker; health checks (index of websites due, syncCategories).
    tables: {
      accounts: ['GetItem', 'UpdateItem'],
      dailyUsage: ['UpdateItem'],
      articles: ['GetItem', 'Query', 'UpdateItem'],
      websites: ['GetItem', 'Query', 'UpdateItem'],
      categories: ['GetItem', 'Query', 'BatchWriteItem'],
    },
    sendsToQueue: true,
    // Encrypt too: old records are re-encrypted bound to their URL on read (site-access.ts).
    sitePasswordKey: 'encryptDecrypt',
    callsCustomerSites: true,
  },
};
