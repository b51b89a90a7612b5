/**
 * The stores whose changes report webhook events: each stores its event in the transaction of
 * the change (adapters/dynamodb/event-outbox.ts), and the sweeper finishes events whose producer
 * died before sending them.
 */
import { DynamoArticleRepository } from '../adapters/dynamodb/article-repository';
import { EventOutbox } from '../adapters/dynamodb/event-outbox';
import { DynamoPublicationRepository } from '../adapters/dynamodb/publication-repository';
import { DynamoWebsiteRepository } from '../adapters/dynamodb/website-repository';
import type { ArticleStore, WebsiteLookup } from '../core/articles/ports';
import { showArticle } from '../core/articles/read-articles';
import { NotFoundError } from '../core/errors';
import type { PublicationStore } from '../core/publishing/ports';
import type { EventRecordingDeps } from '../core/webhooks/deliver-webhooks';
import type { EventDescriber } from '../core/webhooks/ports';
import type { WebsiteStore } from '../core/websites/ports';
import { showWebsite } from '../core/websites/read-websites';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';
import { logger } from '../shared/logger';
import { articleStore } from './articles';
import { webhookDeliveryDeps } from './webhook-delivery';
import { categoryStore, websiteStore } from './websites';

/** Undefined for a record deleted meanwhile: nothing to report. */
async function unlessDeleted(show: () => Promise<unknown>): Promise<unknown> {
  try {
    return await show();
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** The `data` of website events: the website as `show` returns it now. */
function websiteDescriber(websites: WebsiteStore): EventDescriber {
  return (accountId, subject) => {
    if (subject.kind !== 'website') throw new Error(`Not a website event: ${subject.kind}`);
    return unlessDeleted(() => showWebsite({ websites }, accountId, subject.uuid));
  };
}

/** The `data` of any event: the article or website as `show` returns it now. */
function describer(config: Config): EventDescriber {
  const read = {
    articles: articleStore(config),
    websites: websiteStore(config),
    categories: categoryStore(config),
  };
  const website = websiteDescriber(read.websites);
  return (accountId, subject) =>
    subject.kind === 'article'
      ? unlessDeleted(() => showArticle(read, accountId, subject.uuid))
      : website(accountId, subject);
}

const logged = {
  onUnfinished: (event: { eventId: string }, error: unknown) =>
    logger.warn('Could not finish a stored webhook event; tried again later', {
      eventId: event.eventId,
      error: error instanceof Error ? error.message : String(error),
    }),
  onEndpointsUnknown: (error: unknown) =>
    logger.warn("Could not read the account's webhooks; the event is stored for fan-out to decide", {
      error: error instanceof Error ? error.message : String(error),
    }),
};

/** Recording events and finishing them: the sweeper's re-sends (any event). */
export function eventRecordingDeps(config: Config): EventRecordingDeps {
  return { ...webhookDeliveryDeps(config), describe: describer(config), ...logged };
}

/** `describe` covers the events its store records (website routes bundle no article reads). */
function eventOutbox(config: Config, describe: EventDescriber): EventOutbox {
  return new EventOutbox(config.tables.webhooks, { ...webhookDeliveryDeps(config), describe, ...logged });
}

/** The article store of the worker and the sweeper: generated and failed articles record events. */
export function articlesWithEvents(config: Config): ArticleStore {
  return new DynamoArticleRepository(
    dynamoDocumentClient(),
    config.tables,
    eventOutbox(config, describer(config)),
  );
}

/** Publications whose final state (published, given up) records events. */
export function publicationsWithEvents(config: Config): PublicationStore {
  return new DynamoPublicationRepository(
    dynamoDocumentClient(),
    config.tables.articles,
    eventOutbox(config, describer(config)),
  );
}

/** Websites whose health changes record events. */
export function websitesWithEvents(config: Config): WebsiteStore & WebsiteLookup {
  return new DynamoWebsiteRepository(
    dynamoDocumentClient(),
    config.tables.websites,
    eventOutbox(config, websiteDescriber(websiteStore(config))),
  );
}
