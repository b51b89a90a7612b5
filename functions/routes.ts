/**
 * The route table and the background functions, defined once: the CDK stack creates one
 * Lambda per entry and the local runtime serves the same handlers from it.
 */
import type { TableName } from './adapters/dynamodb/table-definitions';
import { DOCS_VIEWER_FILE } from './api/openapi/docs-viewer';

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
  /** Calls customer WordPress sites or webhook receivers (gets a longer timeout). */
  callsCustomerSites?: boolean;
  /** Sends messages to the webhook queue (records webhook events). */
  sendsToWebhookQueue?: boolean;
  /** Consumes the webhook queue. */
  consumesWebhookQueue?: boolean;
}

export interface FunctionDefinition {
  /** Stable name: construct id in the stack, name in logs. */
  name: string;
  /** Handler file relative to the repository root; it exports `handler`. */
  entry: string;
  access: FunctionAccess;
  /** Files (relative to the repository root) copied next to the bundle, read at run time. */
  bundledFiles?: string[];
}

export interface RouteDefinition extends FunctionDefinition {
  methods: HttpMethod[];
  /** API Gateway resource path; `{param}` segments are path parameters. */
  path: string;
  /** Answered without a token (the authorizer does not guard it). */
  public?: boolean;
}

const readAccount: Partial<Record<TableName, TableAccess>> = { accounts: 'read' };
/** Tables a function needs to record webhook events (the outbox, and the records events carry). */
const recordsEvents: Partial<Record<TableName, TableAccess>> = { webhooks: 'readWrite' };

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
      tables: { websites: 'readWrite', categories: 'readWrite', articles: 'readWrite', ...recordsEvents },
      sitePasswordKey: 'encrypt',
      callsCustomerSites: true,
      sendsToWebhookQueue: true,
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
  {
    name: 'ShowAccount',
    methods: ['GET'],
    path: '/v1/account',
    entry: 'functions/api/show-account.ts',
    access: { tables: { accounts: 'read', dailyUsage: 'read' } },
  },
  {
    name: 'AccountUsage',
    methods: ['GET'],
    path: '/v1/account/usage',
    entry: 'functions/api/account-usage.ts',
    access: { tables: { usageDays: 'read' } },
  },
  {
    name: 'RefreshCategories',
    methods: ['POST'],
    path: '/v1/websites/{website_uuid}/categories/refresh',
    entry: 'functions/api/refresh-categories.ts',
    access: {
      tables: { websites: 'readWrite', categories: 'readWrite', ...recordsEvents },
      sitePasswordKey: 'decrypt',
      callsCustomerSites: true,
      sendsToWebhookQueue: true,
    },
  },
  {
    name: 'CreateWebhook',
    methods: ['POST'],
    path: '/v1/webhooks/create',
    entry: 'functions/api/create-webhook.ts',
    access: { tables: { webhooks: 'readWrite' }, sitePasswordKey: 'encrypt' },
  },
  {
    name: 'ListWebhooks',
    methods: ['GET'],
    path: '/v1/webhooks/list',
    entry: 'functions/api/list-webhooks.ts',
    access: { tables: { webhooks: 'read' } },
  },
  {
    name: 'ShowWebhook',
    methods: ['GET'],
    path: '/v1/webhooks/{webhook_uuid}/show',
    entry: 'functions/api/show-webhook.ts',
    access: { tables: { webhooks: 'read' } },
  },
  {
    name: 'DeleteWebhook',
    methods: ['PUT'],
    path: '/v1/webhooks/{webhook_uuid}/delete',
    entry: 'functions/api/delete-webhook.ts',
    access: { tables: { webhooks: 'readWrite' } },
  },
  {
    name: 'ListWebhookDeliveries',
    methods: ['GET'],
    path: '/v1/webhooks/{webhook_uuid}/deliveries',
    entry: 'functions/api/list-webhook-deliveries.ts',
    access: { tables: { webhooks: 'read' } },
  },
  {
    name: 'OpenApiDocument',
    methods: ['GET'],
    path: '/v1/openapi.json',
    entry: 'functions/api/openapi-document.ts',
    access: { tables: {} },
    public: true,
  },
  {
    name: 'DocsPage',
    methods: ['GET'],
    path: '/docs',
    entry: 'functions/api/docs-page.ts',
    access: { tables: {} },
    public: true,
    bundledFiles: [DOCS_VIEWER_FILE],
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
      usageDays: 'readWrite',
      ...recordsEvents,
    },
    consumesQueue: true,
    sendsToWebhookQueue: true,
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
      ...recordsEvents,
    },
    sendsToQueue: true,
    sendsToWebhookQueue: true,
    sitePasswordKey: 'decrypt',
    callsCustomerSites: true,
  },
};

/** Consumes the webhook queue: fans events out to endpoints and makes the signed attempts. */
export const webhookDispatcher: FunctionDefinition = {
  name: 'WebhookDispatcher',
  entry: 'functions/worker/webhook-dispatcher.ts',
  access: {
    tables: { webhooks: 'readWrite' },
    consumesWebhookQueue: true,
    sendsToWebhookQueue: true,
    sitePasswordKey: 'decrypt',
    callsCustomerSites: true,
  },
};
