/**
 * The stores whose changes report webhook events: each stores its event, with its body, in the
 * transaction of the change (adapters/dynamodb/event-outbox.ts), and the sweeper sends the
 * stored events whose message was never sent.
 */
import { DynamoArticleRepository } from '../adapters/dynamodb/article-repository';
import type { DynamoBatchRepository } from '../adapters/dynamodb/batch-repository';
import { EventOutbox } from '../adapters/dynamodb/event-outbox';
import { DynamoPublicationRepository } from '../adapters/dynamodb/publication-repository';
import { DynamoWebsiteRepository } from '../adapters/dynamodb/website-repository';
import type { ArticleStore, WebsiteLookup } from '../core/articles/ports';
import { presentAsShown } from '../core/articles/read-articles';
import { presentBatch } from '../core/articles/read-batches';
import type { PublicationStore } from '../core/publishing/ports';
import type { EventResendDeps } from '../core/webhooks/deliver-webhooks';
import type { EventPresenter } from '../core/webhooks/ports';
import type { WebsiteStore } from '../core/websites/ports';
import { presentIndexedWebsite } from '../core/websites/site-index';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';
import { logger } from '../shared/logger';
import { batchStore } from './batches';
import { siteIndexStore } from './site-index';
import { webhookDeliveryDeps } from './webhook-delivery';
import { categoryStore, websiteStore } from './websites';

/**
 * The `data` of website events: the website as `show` presents it, its site index fields
 * included (read when the event is stored; the index is not part of the website's transaction).
 */
function websitePresenter(config: Config): EventPresenter {
  const siteIndex = siteIndexStore(config);
  return async (record) => {
    if (record.kind !== 'website') throw new Error(`Not a website event: ${record.kind}`);
    return presentIndexedWebsite(record.website, await siteIndex.getState(record.website.websiteUuid));
  };
}

/**
 * The `data` of any event: the article (with its website, as the same change leaves it, and its
 * category) or the website, as `show` presents it.
 */
function presenter(config: Config): EventPresenter {
  const websites = websiteStore(config);
  const categories = categoryStore(config);
  const presentWebsiteEvent = websitePresenter(config);
  return (record) => {
    if (record.kind === 'website') return presentWebsiteEvent(record);
    if (record.kind === 'batch')
      return Promise.resolve({ ...presentBatch(record.batch), counts: record.counts });
    const change = record.websiteChange;
    const changed: WebsiteLookup = change
      ? {
          get: async (accountId, uuid) => {
            const website = await websites.get(accountId, uuid);
            return website && change(website);
          },
          getMany: async (accountId, uuids) => (await websites.getMany(accountId, uuids)).map(change),
        }
      : websites;
    return presentAsShown({ websites: changed, categories }, record.article);
  };
}

const logged = {
  onUnfinished: (event: { eventId: string }, error: unknown) =>
    logger.warn('Could not read a stored webhook event; tried again later', {
      eventId: event.eventId,
      error: error instanceof Error ? error.message : String(error),
    }),
  onEndpointsUnknown: (error: unknown) =>
    logger.warn("Could not read the account's webhooks; the event is stored for fan-out to decide", {
      error: error instanceof Error ? error.message : String(error),
    }),
};

/** The sweeper's re-sends of stored events and due deliveries. */
export function eventResendDeps(config: Config): EventResendDeps {
  return {
    ...webhookDeliveryDeps(config),
    onUnfinished: logged.onUnfinished,
    onClosed: (event, reason) =>
      logger.warn('Closed a stored webhook event without sending it', { eventId: event.eventId, reason }),
  };
}

/** `present` covers the events its store records (website routes bundle no article reads). */
function eventOutbox(config: Config, present: EventPresenter): EventOutbox {
  return new EventOutbox(config.tables.webhooks, {
    ...webhookDeliveryDeps(config),
    present,
    onEndpointsUnknown: logged.onEndpointsUnknown,
  });
}

/** The article store of the worker and the sweeper: generated and failed articles record events. */
export function articlesWithEvents(config: Config): ArticleStore {
  return new DynamoArticleRepository(
    dynamoDocumentClient(),
    config.tables,
    eventOutbox(config, presenter(config)),
  );
}

/** Publications whose final state (published, given up) records events. */
export function publicationsWithEvents(config: Config): PublicationStore {
  return new DynamoPublicationRepository(
    dynamoDocumentClient(),
    config.tables.articles,
    eventOutbox(config, presenter(config)),
  );
}

/** Batches whose completion records `batch.completed` (the sweeper's). */
export function batchesWithEvents(config: Config): DynamoBatchRepository {
  return batchStore(config, eventOutbox(config, presenter(config)));
}

/** Websites whose health changes record events. */
export function websitesWithEvents(config: Config): WebsiteStore & WebsiteLookup {
  return new DynamoWebsiteRepository(
    dynamoDocumentClient(),
    config.tables.websites,
    eventOutbox(config, websitePresenter(config)),
  );
}
