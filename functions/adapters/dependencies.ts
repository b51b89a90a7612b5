/**
 * The composition root: each port's production implementation, created once per process on
 * first use (after the environment is set, which lets tests point it at emulators).
 */
import type { AccountStore, TokenStore } from '../core/accounts';
import type { ArticleActionDeps, CancelArticleDeps } from '../core/articles/article-actions';
import type { CreateArticleDeps } from '../core/articles/create-article';
import type {
  ArticleStore,
  CategoryLookup,
  Clock,
  GenerationQueue,
  WebsiteLookup,
} from '../core/articles/ports';
import { type ReadArticlesDeps, showArticle } from '../core/articles/read-articles';
import type { QueuedGenerations, ResendUnfinishedDeps } from '../core/articles/resend-unfinished';
import type { SweepArticlesDeps } from '../core/articles/sweep-articles';
import type { PublicationStore } from '../core/publishing/ports';
import type { PublishDeps } from '../core/publishing/publish-article';
import type { UsageDeps } from '../core/usage';
import { type AttemptDeps, emitEvent, type WebhookDeliveryDeps } from '../core/webhooks/deliver-webhooks';
import type { ManageWebhooksDeps } from '../core/webhooks/manage-webhooks';
import type { WebhookEvents, WebhookStore } from '../core/webhooks/ports';
import type { CmsClient } from '../core/websites/cms-client';
import type { WebsiteDeps } from '../core/websites/create-website';
import type { PasswordCipher } from '../core/websites/password-cipher';
import type { CategoryStore, WebsiteStore } from '../core/websites/ports';
import { showWebsite } from '../core/websites/read-websites';
import { dynamoDocumentClient, kmsClient, sqsClient } from '../shared/aws-clients';
import { envFlag, requireEnv } from '../shared/env';
import { logger } from '../shared/logger';
import { recordFinalPublishFailure } from '../shared/metrics';
import { DynamoAccountRepository } from './dynamodb/account-repository';
import { DynamoApiTokenRepository } from './dynamodb/api-token-repository';
import { DynamoArticleRepository } from './dynamodb/article-repository';
import { DynamoCategoryRepository } from './dynamodb/category-repository';
import { DynamoPublicationRepository } from './dynamodb/publication-repository';
import { tableNameOf } from './dynamodb/table-names';
import { DynamoUsageRepository } from './dynamodb/usage-repository';
import { DynamoWebhookRepository } from './dynamodb/webhook-repository';
import { DynamoWebsiteRepository } from './dynamodb/website-repository';
import { KmsPasswordCipher } from './kms/site-password-cipher';
import { KmsWebhookSecretCipher } from './kms/webhook-secret-cipher';
import { SqsGenerationQueue } from './sqs/sqs-generation-queue';
import { SqsWebhookQueue } from './sqs/sqs-webhook-queue';
import {
  type EventReaders,
  withArticleEvents,
  withHealthEvents,
  withPublicationEvents,
} from './webhooks/event-hooks';
import {
  ReceiverUrlGuard,
  SignedWebhookSender,
  webhookOutboundPolicy,
} from './webhooks/signed-webhook-sender';
import { systemResolver } from './wordpress/ssrf-guard';
import { DEFAULT_SITE_LIMITS, WordPressClient } from './wordpress/wordpress-client';

function once<T>(create: () => T): () => T {
  let instance: T | undefined;
  return () => {
    instance ??= create();
    return instance;
  };
}

export const accountStore = once<AccountStore>(
  () => new DynamoAccountRepository(dynamoDocumentClient(), tableNameOf('accounts')),
);

export const tokenStore = once<TokenStore>(
  () => new DynamoApiTokenRepository(dynamoDocumentClient(), tableNameOf('apiTokens')),
);

/** The repository class satisfies both the websites' store and the articles' lookup. */
export const websiteStore = once<WebsiteStore & WebsiteLookup>(
  () => new DynamoWebsiteRepository(dynamoDocumentClient(), tableNameOf('websites')),
);

export const categoryStore = once<CategoryStore & CategoryLookup>(
  () => new DynamoCategoryRepository(dynamoDocumentClient(), tableNameOf('categories')),
);

/** Table names are read when an operation first needs them: each function gets only its own. */
export const articleStore = once<ArticleStore & QueuedGenerations>(
  () =>
    new DynamoArticleRepository(dynamoDocumentClient(), {
      get articles() {
        return tableNameOf('articles');
      },
      get accounts() {
        return tableNameOf('accounts');
      },
      get dailyUsage() {
        return tableNameOf('dailyUsage');
      },
      get websites() {
        return tableNameOf('websites');
      },
      get usageDays() {
        return tableNameOf('usageDays');
      },
    }),
);

const sqsGenerationQueue = once(
  () => new SqsGenerationQueue(sqsClient(), requireEnv('GENERATION_QUEUE_URL')),
);

export const generationQueue = (): GenerationQueue => sqsGenerationQueue();

/** The worker's handle on its own deliveries (retry backoff). */
export const generationDeliveries = (): Pick<SqsGenerationQueue, 'retryDelivery'> => sqsGenerationQueue();

const systemClock: Clock = () => new Date();

const websiteLookup = (): WebsiteLookup => websiteStore();
const categoryLookup = (): CategoryLookup => categoryStore();

/** What reading articles needs (show, list, queue). */
export function readArticleDeps(): ReadArticlesDeps {
  return { articles: articleStore(), websites: websiteLookup(), categories: categoryLookup() };
}

/** What queueing a new article needs. */
export function createArticleDeps(): Omit<CreateArticleDeps, 'onEnqueueFailure'> {
  return {
    ...readArticleDeps(),
    articles: articleStore(),
    accounts: accountStore(),
    queue: generationQueue(),
    clock: systemClock,
  };
}

export { systemClock };

/** What cancelling an article needs. */
export function cancelArticleDeps(): CancelArticleDeps {
  return { ...readArticleDeps(), articles: articleStore(), clock: systemClock };
}

/** What retrying an article needs. */
export function retryArticleDeps(): ArticleActionDeps {
  return {
    ...readArticleDeps(),
    articles: articleStore(),
    accounts: accountStore(),
    publications: publicationStore(),
    queue: generationQueue(),
    clock: systemClock,
  };
}

export function sweepDeps(): SweepArticlesDeps {
  return {
    articles: articlesWithEvents(),
    accounts: accountStore(),
    queue: generationQueue(),
    clock: systemClock,
  };
}

/** What re-sending the messages of a queue that lost them needs (the local runtime). */
export function resendUnfinishedDeps(): ResendUnfinishedDeps {
  return { articles: articleStore(), queue: generationQueue() };
}

export const passwordCipher = once<PasswordCipher>(
  () => new KmsPasswordCipher(kmsClient(), requireEnv('SITE_PASSWORD_KEY_ID')),
);

/** Calls to customer sites; private addresses only when INKPRESS_ALLOW_PRIVATE_URLS is on (local mode). */
export const cmsClient = once<CmsClient>(
  () =>
    new WordPressClient({
      ...DEFAULT_SITE_LIMITS,
      allowPrivate: envFlag('INKPRESS_ALLOW_PRIVATE_URLS', false),
      resolve: systemResolver,
    }),
);

/** Everything the website use cases need; plain http site URLs only in local mode. */
export function websiteDeps(): WebsiteDeps {
  return {
    websites: websiteStore(),
    categories: categoryStore(),
    cipher: passwordCipher(),
    cms: cmsClient(),
    allowPlainHttp: envFlag('INKPRESS_ALLOW_PRIVATE_URLS', false),
  };
}

export const publicationStore = once<PublicationStore>(
  () => new DynamoPublicationRepository(dynamoDocumentClient(), tableNameOf('articles')),
);

/** Everything publishing (worker) and the sweeper's website work need. */
export function publishDeps(): PublishDeps {
  return {
    articles: articleStore(),
    publications: withPublicationEvents(publicationStore(), webhookEvents(), eventReaders),
    websites: websitesWithEvents(),
    categories: categoryStore(),
    cipher: passwordCipher(),
    cms: cmsClient(),
    clock: systemClock,
    onFailure: (ref, reason, nextAttemptAt) =>
      logger.warn('Publication failed; retry scheduled', {
        articleUuid: ref.articleUuid,
        reason,
        nextAttemptAt,
      }),
    onFinalFailure: (ref, reason) => {
      recordFinalPublishFailure();
      logger.error('Publication failed for good; the article keeps its content', {
        articleUuid: ref.articleUuid,
        reason,
      });
    },
  };
}

export const usageStore = once(
  () =>
    new DynamoUsageRepository(dynamoDocumentClient(), {
      get usageDays() {
        return tableNameOf('usageDays');
      },
      get dailyUsage() {
        return tableNameOf('dailyUsage');
      },
    }),
);

/** What `GET /v1/account` needs. */
export function accountDeps(): UsageDeps {
  return { accounts: accountStore(), usage: usageStore(), clock: systemClock };
}

export const webhookStore = once<WebhookStore>(
  () => new DynamoWebhookRepository(dynamoDocumentClient(), tableNameOf('webhooks')),
);

const webhookQueue = once(() => new SqsWebhookQueue(sqsClient(), requireEnv('WEBHOOK_QUEUE_URL')));

const webhookSecretCipher = once(
  () => new KmsWebhookSecretCipher(kmsClient(), requireEnv('SITE_PASSWORD_KEY_ID')),
);

/** Outbound policy of webhook receivers: the SSRF guard, off only in local mode. */
const receiverPolicy = () => ({
  allowPrivate: envFlag('INKPRESS_ALLOW_PRIVATE_URLS', false),
  resolve: systemResolver,
});

/** Creating, listing and deleting webhooks. */
export function manageWebhookDeps(): ManageWebhooksDeps {
  return {
    webhooks: webhookStore(),
    cipher: webhookSecretCipher(),
    urls: new ReceiverUrlGuard(receiverPolicy()),
    clock: systemClock,
  };
}

/** Fan-out and the sweeper's re-sends. */
export function webhookDeliveryDeps(): WebhookDeliveryDeps {
  return { webhooks: webhookStore(), queue: webhookQueue(), clock: systemClock };
}

/** One delivery attempt: signed POST through the SSRF guard. */
export function webhookAttemptDeps(): AttemptDeps {
  return {
    ...webhookDeliveryDeps(),
    cipher: webhookSecretCipher(),
    sender: new SignedWebhookSender(webhookOutboundPolicy(receiverPolicy())),
  };
}

/** Records events for the worker, the sweeper and the website routes (created on first event). */
export const webhookEvents = once<WebhookEvents>(() => ({
  emit: async (accountId, type, data) => {
    await emitEvent(webhookDeliveryDeps(), accountId, type, data);
  },
}));

/** The records events carry: what `show` returns. */
const eventReaders: EventReaders = {
  article: (accountId, articleUuid) => showArticle(readArticleDeps(), accountId, articleUuid),
  website: (accountId, websiteUuid) => showWebsite({ websites: websiteStore() }, accountId, websiteUuid),
};

/** The article store of the worker and the sweeper: generated and failed articles record events. */
export const articlesWithEvents = once<ArticleStore>(() =>
  withArticleEvents(articleStore(), webhookEvents(), eventReaders),
);

/** The website store of every caller that changes a website's flags: health changes record events. */
export const websitesWithEvents = once<WebsiteStore & WebsiteLookup>(
  () => withHealthEvents(websiteStore(), webhookEvents(), eventReaders) as WebsiteStore & WebsiteLookup,
);
