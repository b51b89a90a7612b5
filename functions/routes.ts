/**
 * The route table and the background functions, defined once: the CDK stack creates one
 * Lambda per entry and the local runtime serves the same handlers from it.
 */
import type { TableName } from './adapters/dynamodb/table-definitions';
import { DOCS_VIEWER_FILE } from './api/openapi/docs-viewer';
import { OPENAPI_DOCUMENT_FILE } from './api/openapi/served-document';
import { runtimeSettings } from './shared/runtime-settings';

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
  /**
   * Uses that key for webhook signing secrets only: its grant holds only for the encryption
   * context of a webhook secret (`purpose`), so it can never decrypt a site password.
   */
  keyOnlyForWebhookSecrets?: true;
  /** Reads the language-model API key secret. */
  readsModelSecret?: boolean;
  /** Calls customer WordPress sites or webhook receivers (gets a longer timeout). */
  callsCustomerSites?: boolean;
  /** Sends messages to the webhook queue (records webhook events). */
  sendsToWebhookQueue?: boolean;
  /** Consumes the webhook queue. */
  consumesWebhookQueue?: boolean;
  /**
   * The web search provider (`research=web`): `knows` reads only whether one is configured
   * (SEARCH_PROVIDER); `uses` also its address or key (the key's Secrets Manager secret, deployed).
   */
  webSearch?: 'knows' | 'uses';
  /**
   * The article image bucket: `read` presigns links to images (GetObject); `readWrite` also
   * stores, tags at publication and deletes them.
   */
  imageBucket?: 'read' | 'readWrite';
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
  /** Reads form fields from the body of its requests other than GET; every other body is ignored. */
  takesBody?: boolean;
  /** Largest body it takes, when not `MAX_BODY_BYTES` (64 KB): a batch's CSV or JSON. */
  maxBodyBytes?: number;
}

/** Every route takes a token from its account's bucket (one UpdateItem) before anything else. */
const rateLimited = (
  tables: Partial<Record<TableName, TableAccess>>,
): Partial<Record<TableName, TableAccess>> => ({ rateLimits: ['UpdateItem'], ...tables });

/**
 * What recording a webhook event needs (event-outbox.ts): the account's endpoints (Query) and the
 * outbox item with its body (PutItem, in the transaction of the change), plus reading the record
 * the body carries (article: the item, its website and category in batch; website: the item).
 */
const recordsEvents: Partial<Record<TableName, TableAccess>> = {
  webhooks: ['Query', 'PutItem'],
};

/** An account's failed logins to a site, kept in the RateLimits table beside its token bucket. */
const countsLoginFailures: Partial<Record<TableName, TableAccess>> = {
  rateLimits: ['UpdateItem', 'GetItem', 'PutItem'],
};

/**
 * Building or refreshing a website's site index (core/websites/site-index.ts): its state (get,
 * put), its posts listed (Query) and written or removed in batches.
 */
const buildsSiteIndex: Partial<Record<TableName, TableAccess>> = {
  siteIndex: ['GetItem', 'PutItem', 'Query', 'BatchWriteItem'],
};

/** The largest batch body: 500 creates of a few KB at most (API Gateway takes 10 MB, Lambda 6 MB). */
export const MAX_BATCH_BODY_BYTES = 2 * 1024 * 1024;

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
    takesBody: true,
    entry: 'functions/api/create-website.ts',
    access: {
      // isUrlRegistered; create (a transaction of two puts); categories putAll / deleteMany;
      // the Idempotency-Key record (Powertools: put, get, update, delete on failure); the
      // account's failed logins to the site (login-failures.ts).
      tables: rateLimited({
        ...countsLoginFailures,
        websites: ['GetItem', 'PutItem'],
        categories: ['BatchWriteItem'],
        idempotency: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
        ...buildsSiteIndex,
      }),
      sitePasswordKey: 'encrypt',
      callsCustomerSites: true,
    },
  },
  {
    name: 'CheckWebsite',
    methods: ['POST'],
    path: '/v1/websites/check',
    takesBody: true,
    entry: 'functions/api/check-website.ts',
    access: {
      // The connection doctor: calls the site, stores nothing but the account's failed logins
      // to it (login-failures.ts), as a create does.
      tables: rateLimited({ ...countsLoginFailures }),
      callsCustomerSites: true,
    },
  },
  {
    name: 'ShowWebsite',
    methods: ['GET'],
    path: '/v1/websites/{website_uuid}/show',
    entry: 'functions/api/show-website.ts',
    // The website and its index state (posts_indexed, indexed_at).
    access: { tables: rateLimited({ websites: ['GetItem'], siteIndex: ['GetItem'] }) },
  },
  {
    name: 'SiteProfile',
    methods: ['GET', 'PUT'],
    path: '/v1/websites/{website_uuid}/profile',
    takesBody: true,
    entry: 'functions/api/site-profile.ts',
    access: {
      // The website and its profile item read; a PUT: the default category checked, the profile
      // put with a check that the website is still there (one transaction).
      tables: rateLimited({
        websites: ['GetItem', 'PutItem', 'ConditionCheckItem'],
        categories: ['GetItem'],
      }),
    },
  },
  {
    name: 'UpdateWebsite',
    methods: ['PUT'],
    path: '/v1/websites/{website_uuid}/update',
    takesBody: true,
    entry: 'functions/api/update-website.ts',
    access: {
      // get, updateCredentials; syncCategories; makeDueForWebsite (sweep index, then updates).
      // ...and the website.recovered event (the website as the update found it); the account's
      // failed logins to the site (login-failures.ts); the index state it answers with.
      tables: rateLimited({
        ...countsLoginFailures,
        websites: ['GetItem', 'UpdateItem'],
        categories: ['Query', 'BatchWriteItem'],
        articles: ['Query', 'UpdateItem'],
        siteIndex: ['GetItem'],
        ...recordsEvents,
      }),
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
    // get, delete (a transaction of three deletes: the website, its URL guard, its profile);
    // removeAllCategories; the site index's removeAll.
    access: {
      tables: rateLimited({
        websites: ['GetItem', 'DeleteItem'],
        categories: ['Query', 'BatchWriteItem'],
        siteIndex: ['Query', 'BatchWriteItem'],
      }),
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
    // generatedCount, one page of the generated index, the page's websites and categories; links
    // to the page's images.
    access: {
      tables: rateLimited({
        accounts: ['GetItem'],
        articles: ['Query'],
        websites: ['BatchGetItem'],
        categories: ['BatchGetItem'],
      }),
      imageBucket: 'read',
    },
  },
  {
    name: 'ListQueuedArticles',
    methods: ['GET', 'POST'],
    path: '/v1/articles/queue',
    takesBody: true,
    entry: 'functions/api/list-queued-articles.ts',
    access: {
      tables: rateLimited({
        articles: ['GetItem', 'Query'],
        websites: ['BatchGetItem'],
        categories: ['BatchGetItem'],
      }),
      // The records are shown by the article presenter, which links images.
      imageBucket: 'read',
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
      // Presigned links to the article's images.
      imageBucket: 'read',
    },
  },
  {
    name: 'CreateArticle',
    methods: ['POST'],
    path: '/v1/articles/create',
    takesBody: true,
    entry: 'functions/api/create-article.ts',
    access: {
      // The reservation transaction (article put, credits and daily usage updates), the deferred
      // put, the re-read of a retried create, postponeStuckCheck; the website and category check.
      // Creates reserved together (reservation-groups.ts, in a process serving many at once) read
      // the balance and the day's count and check them in the transaction that stores the waiting.
      tables: rateLimited({
        accounts: ['GetItem', 'UpdateItem', 'ConditionCheckItem'],
        dailyUsage: ['GetItem', 'UpdateItem', 'ConditionCheckItem'],
        articles: ['GetItem', 'PutItem', 'UpdateItem'],
        websites: ['GetItem'],
        categories: ['GetItem'],
        idempotency: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
        // The topic check reads the website's site index (same-topic.ts).
        siteIndex: ['GetItem', 'Query'],
      }),
      sendsToQueue: true,
      webSearch: 'knows',
    },
  },
  {
    name: 'CreateBatch',
    methods: ['POST'],
    path: '/v1/articles/batch',
    takesBody: true,
    maxBodyBytes: MAX_BATCH_BODY_BYTES,
    entry: 'functions/api/create-batch.ts',
    access: {
      // Each row checked as a create (website, category, profile, site index); the batch store
      // (batch-repository.ts): the batch read, its requests stored and deleted, the queue numbers
      // (UpdateItem), one transaction (batch put, credits, the day's count, queue counters), the
      // articles written (BatchWriteItem; a retry's recovery: conditional puts), the batch
      // updated; then the messages (SendMessageBatch), markSent 25 articles to a transaction of
      // UpdateItems, and postponeCheck per article whose message failed.
      tables: rateLimited({
        accounts: ['GetItem', 'UpdateItem'],
        dailyUsage: ['GetItem', 'UpdateItem'],
        articles: ['BatchWriteItem', 'PutItem', 'UpdateItem'],
        websites: ['GetItem'],
        categories: ['GetItem'],
        siteIndex: ['GetItem', 'Query'],
        batches: ['GetItem', 'PutItem', 'UpdateItem', 'Query', 'BatchWriteItem'],
        idempotency: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      }),
      sendsToQueue: true,
      webSearch: 'knows',
    },
  },
  {
    name: 'ListBatches',
    methods: ['GET'],
    path: '/v1/batches',
    entry: 'functions/api/list-batches.ts',
    // One page of the account's batches (index) and their count.
    access: { tables: rateLimited({ batches: ['Query'] }) },
  },
  {
    name: 'ShowBatch',
    methods: ['GET'],
    path: '/v1/batches/{batch_uuid}',
    entry: 'functions/api/show-batch.ts',
    // The batch, and its items' articles (state, publication, publish_at) in batches of 100.
    access: { tables: rateLimited({ batches: ['GetItem'], articles: ['BatchGetItem'] }) },
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
      // The answer is the article as show presents it, image links included.
      imageBucket: 'read',
    },
  },
  {
    name: 'ApproveOutline',
    methods: ['POST'],
    path: '/v1/articles/{article_uuid}/outline',
    takesBody: true,
    entry: 'functions/api/approve-outline.ts',
    access: {
      // The article read and its conditional move back to queued; the message's sweep time
      // (markSent, postponeCheck); the answer's website and category.
      tables: rateLimited({
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
    access: { tables: rateLimited({ accounts: ['GetItem'], dailyUsage: ['GetItem'] }) },
  },
  {
    name: 'AccountUsage',
    methods: ['GET'],
    path: '/v1/account/usage',
    entry: 'functions/api/account-usage.ts',
    access: { tables: rateLimited({ usageDays: ['Query'] }) },
  },
  {
    name: 'RefreshCategories',
    methods: ['POST'],
    path: '/v1/websites/{website_uuid}/categories/refresh',
    entry: 'functions/api/refresh-categories.ts',
    access: {
      // The website (and its password migration), syncCategories, recordHealth and its events
      // (whose body carries the site index fields of show).
      tables: rateLimited({
        websites: ['GetItem', 'UpdateItem'],
        categories: ['Query', 'BatchWriteItem'],
        siteIndex: ['GetItem'],
        ...recordsEvents,
      }),
      // Encrypt too: old records are re-encrypted bound to their URL on read (site-access.ts).
      sitePasswordKey: 'encryptDecrypt',
      callsCustomerSites: true,
      sendsToWebhookQueue: true,
    },
  },
  {
    name: 'RefreshSiteIndex',
    methods: ['POST'],
    path: '/v1/websites/{website_uuid}/index/refresh',
    entry: 'functions/api/refresh-site-index.ts',
    access: {
      // The website (and its password migration); the index read, written and counted.
      tables: rateLimited({ websites: ['GetItem', 'UpdateItem'], ...buildsSiteIndex }),
      // Encrypt too: old records are re-encrypted bound to their URL on read (site-access.ts).
      sitePasswordKey: 'encryptDecrypt',
      callsCustomerSites: true,
    },
  },
  {
    name: 'CreateWebhook',
    methods: ['POST'],
    path: '/v1/webhooks/create',
    takesBody: true,
    entry: 'functions/api/create-webhook.ts',
    // The counter update and the endpoint put, in one transaction; the secret encrypted.
    access: {
      tables: rateLimited({ webhooks: ['UpdateItem', 'PutItem'] }),
      sitePasswordKey: 'encrypt',
      keyOnlyForWebhookSecrets: true,
    },
  },
  {
    name: 'ListWebhooks',
    methods: ['GET'],
    path: '/v1/webhooks/list',
    entry: 'functions/api/list-webhooks.ts',
    access: { tables: rateLimited({ webhooks: ['Query'] }) },
  },
  {
    name: 'ShowWebhook',
    methods: ['GET'],
    path: '/v1/webhooks/{webhook_uuid}/show',
    entry: 'functions/api/show-webhook.ts',
    access: { tables: rateLimited({ webhooks: ['GetItem'] }) },
  },
  {
    name: 'DeleteWebhook',
    methods: ['PUT'],
    path: '/v1/webhooks/{webhook_uuid}/delete',
    entry: 'functions/api/delete-webhook.ts',
    // The endpoint, then its delete and the counter update in one transaction.
    access: { tables: rateLimited({ webhooks: ['GetItem', 'DeleteItem', 'UpdateItem'] }) },
  },
  {
    name: 'EnableWebhook',
    methods: ['POST'],
    path: '/v1/webhooks/{webhook_uuid}/enable',
    entry: 'functions/api/enable-webhook.ts',
    // The endpoint, then its disable removed.
    access: { tables: rateLimited({ webhooks: ['GetItem', 'UpdateItem'] }) },
  },
  {
    name: 'RotateWebhookSecret',
    methods: ['POST'],
    path: '/v1/webhooks/{webhook_uuid}/rotate-secret',
    entry: 'functions/api/rotate-webhook-secret.ts',
    // The endpoint, then the new secret (encrypted) conditional on the one read.
    access: {
      tables: rateLimited({ webhooks: ['GetItem', 'UpdateItem'] }),
      sitePasswordKey: 'encrypt',
      keyOnlyForWebhookSecrets: true,
    },
  },
  {
    name: 'ListWebhookDeliveries',
    methods: ['GET'],
    path: '/v1/webhooks/{webhook_uuid}/deliveries',
    entry: 'functions/api/list-webhook-deliveries.ts',
    access: { tables: rateLimited({ webhooks: ['GetItem', 'Query'] }) },
  },
  {
    name: 'OpenApiDocument',
    methods: ['GET'],
    path: '/v1/openapi.json',
    entry: 'functions/api/openapi-document.ts',
    access: { tables: {} },
    public: true,
    bundledFiles: [OPENAPI_DOCUMENT_FILE],
  },
  {
    name: 'DocsPage',
    methods: ['GET'],
    path: '/docs',
    entry: 'functions/api/docs-page.ts',
    access: { tables: {} },
    public: true,
    bundledFiles: [DOCS_VIEWER_FILE, OPENAPI_DOCUMENT_FILE],
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
    // Usage: the day item in the completing transaction. Webhook events: the outbox, and the
    // records they carry (the article's website and category in batch).
    tables: {
      accounts: ['GetItem', 'UpdateItem'],
      articles: ['GetItem', 'UpdateItem'],
      websites: ['GetItem', 'BatchGetItem', 'UpdateItem'],
      categories: ['GetItem', 'BatchGetItem'],
      usageDays: ['UpdateItem'],
      ...recordsEvents,
      // The site index: refreshed before a generation that needs it; a published post joins it.
      ...buildsSiteIndex,
    },
    consumesQueue: true,
    sendsToWebhookQueue: true,
    // Encrypt too: old records are re-encrypted bound to their URL on read (site-access.ts).
    sitePasswordKey: 'encryptDecrypt',
    readsModelSecret: true,
    callsCustomerSites: true,
    webSearch: 'uses',
    // Images: stored at generation, read and tagged at publication, deleted with a failed article.
    imageBucket: 'readWrite',
  },
};

/** Runs on a schedule: deferred reservations, stuck articles, publish retries, site health. */
export const sweeper: FunctionDefinition = {
  name: 'Sweeper',
  entry: 'functions/worker/sweeper.ts',
  access: {
    // The sweep index and the transactions of the reservation and failure steps; publication
    // retries as in the worker; health checks (index of websites due, syncCategories).
    // Webhooks: events recorded as in the worker; re-sends (sweep index, the event read, the
    // re-send time put off, an event without a body closed).
    tables: {
      accounts: ['GetItem', 'UpdateItem'],
      dailyUsage: ['UpdateItem'],
      articles: ['GetItem', 'Query', 'UpdateItem', 'PutItem', 'BatchGetItem'],
      websites: ['GetItem', 'BatchGetItem', 'Query', 'UpdateItem'],
      categories: ['GetItem', 'BatchGetItem', 'Query', 'BatchWriteItem'],
      webhooks: ['Query', 'PutItem', 'GetItem', 'UpdateItem'],
      // A post published by a retry joins its website's site index (state read, post put, count).
      siteIndex: ['GetItem', 'PutItem'],
      // Batches (sweep-batches.ts): due ones (index), their items' articles (BatchGetItem), an
      // interrupted create's articles put from its stored requests (Query, BatchWriteItem to
      // delete them), completion and the next look (UpdateItem); batch.completed's body (GetItem).
      batches: ['GetItem', 'Query', 'UpdateItem', 'BatchWriteItem'],
    },
    sendsToQueue: true,
    sendsToWebhookQueue: true,
    // Encrypt too: old records are re-encrypted bound to their URL on read (site-access.ts).
    sitePasswordKey: 'encryptDecrypt',
    callsCustomerSites: true,
    // Publication retries send the article's images and tag them.
    imageBucket: 'readWrite',
  },
};

/** Consumes the webhook queue: fans events out to endpoints and makes the signed attempts. */
export const webhookDispatcher: FunctionDefinition = {
  name: 'WebhookDispatcher',
  entry: 'functions/worker/webhook-dispatcher.ts',
  access: {
    // Endpoints, events and deliveries read; deliveries and attempts put; leases, retries,
    // dispatch marks and 410 disables updated.
    tables: { webhooks: ['GetItem', 'Query', 'PutItem', 'UpdateItem'] },
    consumesWebhookQueue: true,
    sendsToWebhookQueue: true,
    // It calls hosts customers choose: it may decrypt webhook secrets, never site passwords.
    sitePasswordKey: 'decrypt',
    keyOnlyForWebhookSecrets: true,
    callsCustomerSites: true,
  },
};

/** Every function of the service: the stack makes one Lambda of each. */
export const allFunctions: readonly FunctionDefinition[] = [
  ...routes,
  authorizer,
  generationWorker,
  sweeper,
  webhookDispatcher,
];

/**
 * An API route's timeout: API Gateway's limit for routes that call customer sites, 10 s for the
 * others (the stack's and the local runtime's, so that a crashed request's idempotency record
 * expires alike).
 */
export function apiTimeoutSecondsOf(route: RouteDefinition): number {
  return route.access.callsCustomerSites ? runtimeSettings.apiTimeoutSeconds : 10;
}

/** The route or background function named `name` (its handler composes what its `access` declares). */
export function functionNamed(
  name: string,
): FunctionDefinition & Pick<Partial<RouteDefinition>, 'public' | 'takesBody'> {
  const definition = allFunctions.find((candidate) => candidate.name === name);
  if (!definition) throw new Error(`No function named ${name} in functions/routes.ts`);
  return definition;
}

/** What one process running all of `definitions` needs (the local runtime, the admin CLI, tests). */
export function combinedAccess(definitions: readonly FunctionDefinition[] = allFunctions): FunctionAccess {
  const combined: FunctionAccess = { tables: {} };
  for (const { access } of definitions) {
    for (const [table, actions] of Object.entries(access.tables) as [TableName, TableAccess][]) {
      combined.tables[table] = [...new Set([...(combined.tables[table] ?? []), ...actions])];
    }
    const { tables: _tables, ...flags } = access;
    for (const [flag, value] of Object.entries(flags)) {
      if (value) Object.assign(combined, { [flag]: value });
    }
  }
  return combined;
}
