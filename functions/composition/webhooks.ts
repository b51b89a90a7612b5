/** Webhooks: endpoints and deliveries, their queue and secret cipher, and recording events from stores. */
import { DynamoWebhookRepository } from '../adapters/dynamodb/webhook-repository';
import { KmsWebhookSecretCipher } from '../adapters/kms/webhook-secret-cipher';
import { SqsWebhookQueue } from '../adapters/sqs/sqs-webhook-queue';
import { withArticleEvents, withHealthEvents, withPublicationEvents } from '../adapters/webhooks/event-hooks';
import {
  ReceiverUrlGuard,
  SignedWebhookSender,
  webhookOutboundPolicy,
} from '../adapters/webhooks/signed-webhook-sender';
import { systemResolver } from '../adapters/wordpress/ssrf-guard';
import type { ArticleStore } from '../core/articles/ports';
import { type ReadArticlesDeps, showArticle } from '../core/articles/read-articles';
import type { PublicationStore } from '../core/publishing/ports';
import { type AttemptDeps, emitEvent, type WebhookDeliveryDeps } from '../core/webhooks/deliver-webhooks';
import type { ManageWebhooksDeps } from '../core/webhooks/manage-webhooks';
import type { WebhookEvents, WebhookStore } from '../core/webhooks/ports';
import type { WebsiteStore } from '../core/websites/ports';
import { showWebsite } from '../core/websites/read-websites';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import { kmsClient } from '../shared/aws/kms';
import { sqsClient } from '../shared/aws/sqs';
import { type Config, declared } from '../shared/config';
import { systemClock } from './clock';

export function webhookStore(config: Config): WebhookStore {
  return new DynamoWebhookRepository(dynamoDocumentClient(), config.tables.webhooks);
}

function secretCipher(config: Config): KmsWebhookSecretCipher {
  return new KmsWebhookSecretCipher(kmsClient(), declared(config.sitePasswordKeyId, 'The site-password key'));
}

/** Outbound policy of webhook receivers: the SSRF guard, off only in local mode. */
function receiverPolicy(config: Config) {
  return { allowPrivate: config.allowPrivateUrls, resolve: systemResolver };
}

/** Creating, listing and deleting webhooks. */
export function manageWebhookDeps(config: Config): ManageWebhooksDeps {
  return {
    webhooks: webhookStore(config),
    cipher: secretCipher(config),
    urls: new ReceiverUrlGuard(receiverPolicy(config)),
    clock: systemClock,
  };
}

/** Fan-out, recording events and the sweeper's re-sends. */
export function webhookDeliveryDeps(config: Config): WebhookDeliveryDeps {
  const queueUrl = declared(config.webhookQueueUrl, 'The webhook queue');
  return {
    webhooks: webhookStore(config),
    queue: new SqsWebhookQueue(sqsClient(), queueUrl),
    clock: systemClock,
  };
}

/** One delivery attempt: signed POST through the SSRF guard. */
export function webhookAttemptDeps(config: Config): AttemptDeps {
  return {
    ...webhookDeliveryDeps(config),
    cipher: secretCipher(config),
    sender: new SignedWebhookSender(webhookOutboundPolicy(receiverPolicy(config))),
  };
}

function webhookEvents(config: Config): WebhookEvents {
  const deps = webhookDeliveryDeps(config);
  return {
    emit: async (accountId, type, data) => {
      await emitEvent(deps, accountId, type, data);
    },
  };
}

/** A website store whose health changes record events (the record carried is what `show` returns). */
export function websitesWithEvents<Store extends WebsiteStore>(config: Config, websites: Store): Store {
  const read = { website: (accountId: string, uuid: string) => showWebsite({ websites }, accountId, uuid) };
  return withHealthEvents(websites, webhookEvents(config), read) as Store;
}

/** The article and publication stores of the worker and the sweeper: their final states record events. */
export function articleEvents(config: Config, read: ReadArticlesDeps) {
  const events = webhookEvents(config);
  const reader = { article: (accountId: string, uuid: string) => showArticle(read, accountId, uuid) };
  return {
    articles: (store: ArticleStore) => withArticleEvents(store, events, reader),
    publications: (store: PublicationStore) => withPublicationEvents(store, events, reader),
  };
}
