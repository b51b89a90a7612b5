/**
 * The route table and the background functions, defined once: the CDK stack creates one
 * Lambda per entry and the local runtime serves the same handlers from it.
 */
import type { TableName } from './adapters/dynamodb/table-definitions';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type TableAccess = 'read' | 'readWrite';

export interface FunctionAccess {
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

const readAccount: Partial<Record<TableName, TableAccess>> = { accounts: 'read' };

export const routes: RouteDefinition[] = [
  {
    name: 'ListLanguages',
    methods: ['GET'],
    path: '/v1/languages',
    entry: 'functions/api/list-languages.ts',
    access: { tables: {} },
  },
  {
    name: 'ListWebsites',
    methods: ['GET'],
    path: '/v1/websites/list',
    entry: 'functions/api/list-websites.ts',
    access: { tables: { websites: 'read' } },
  },
  {
    name: 'CreateWebsite',
    methods: ['POST'],
    path: '/v1/websites/create',
    entry: 'functions/api/create-website.ts',
    access: {
      tables: { websites: 'readWrite', categories: 'readWrite' },
      sitePasswordKey: 'encrypt',
      callsCustomerSites: true,
    },
  },
  {
    name: 'ShowWebsite',
    methods: ['GET'],
    path: '/v1/websites/{website_uuid}/show',
    entry: 'functions/api/show-website.ts',
    access: { tables: { websites: 'read' } },
  },
  {
    name: 'UpdateWebsite',
    methods: ['PUT'],
    path: '/v1/websites/{website_uuid}/update',
    entry: 'functions/api/update-website.ts',
    access: {
      tables: { websites: 'readWrite', categories: 'readWrite', articles: 'readWrite' },
      sitePasswordKey: 'encrypt',
      callsCustomerSites: true,
    },
  },
  {
    name: 'DeleteWebsite',
    methods: ['PUT'],
    path: '/v1/websites/{website_uuid}/delete',
    entry: 'functions/api/delete-website.ts',
    access: { tables: { websites: 'readWrite', categories: 'readWrite' } },
  },
  {
    name: 'ListCategories',
    methods: ['GET'],
    path: '/v1/websites/{website_uuid}/categories',
    entry: 'functions/api/list-categories.ts',
    access: { tables: { websites: 'read', categories: 'read' } },
  },
  {
    name: 'ListArticles',
    methods: ['GET'],
    path: '/v1/articles/list',
    entry: 'functions/api/list-articles.ts',
    access: { tables: { ...readAccount, articles: 'read', websites: 'read', categories: 'read' } },
  },
  {
    name: 'ListQueuedArticles',
    methods: ['GET', 'POST'],
    path: '/v1/articles/queue',
    entry: 'functions/api/list-queued-articles.ts',
    access: { tables: { articles: 'read', websites: 'read', categories: 'read' } },
  },
  {
    name: 'ShowArticle',
    methods: ['GET'],
    path: '/v1/articles/{article_uuid}/show',
    entry: 'functions/api/show-article.ts',
    access: { tables: { articles: 'read', websites: 'read', categories: 'read' } },
  },
  {
    name: 'CreateArticle',
    methods: ['POST'],
    path: '/v1/articles/create',
    entry: 'functions/api/create-article.ts',
    access: {
      tables: {
        accounts: 'readWrite',
        dailyUsage: 'readWrite',
        articles: 'readWrite',
        websites: 'read',
        categories: 'read',
      },
      sendsToQueue: true,
    },
  },
  {
    name: 'RetryArticle',
    methods: ['POST'],
    path: '/v1/articles/{article_uuid}/retry',
    entry: 'functions/api/retry-article.ts',
    access: {
      tables: {
        accounts: 'readWrite',
        dailyUsage: 'readWrite',
        articles: 'readWrite',
        websites: 'read',
        categories: 'read',
      },
      sendsToQueue: true,
    },
  },
  {
    name: 'CancelArticle',
    methods: ['POST'],
    path: '/v1/articles/{article_uuid}/cancel',
    entry: 'functions/api/cancel-article.ts',
    access: {
      tables: { accounts: 'readWrite', articles: 'readWrite', websites: 'read', categories: 'read' },
    },
  },
];

/** Maps a bearer token to its account; runs before every route. */
export const authorizer: FunctionDefinition = {
  name: 'Authorizer',
  entry: 'functions/api/authorizer.ts',
  access: { tables: { apiTokens: 'read' } },
};

/** Consumes the generation queue: generates, then publishes. */
export const generationWorker: FunctionDefinition = {
  name: 'GenerationWorker',
  entry: 'functions/worker/generation-worker.ts',
  access: {
    tables: {
      accounts: 'readWrite',
      articles: 'readWrite',
      websites: 'readWrite',
      categories: 'read',
    },
    consumesQueue: true,
    sitePasswordKey: 'decrypt',
    readsModelSecret: true,
    callsCustomerSites: true,
  },
};

/** Runs on a schedule: deferred reservations, stuck articles, publish retries, site health. */
export const sweeper: FunctionDefinition = {
  name: 'Sweeper',
  entry: 'functions/worker/sweeper.ts',
  access: {
    tables: {
      accounts: 'readWrite',
      dailyUsage: 'readWrite',
      articles: 'readWrite',
      websites: 'readWrite',
      categories: 'readWrite',
    },
    sendsToQueue: true,
    sitePasswordKey: 'decrypt',
    callsCustomerSites: true,
  },
};
