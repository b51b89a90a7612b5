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
import { articleStore } from './articles';
import { webhookDeliveryDeps } from './webhook-delivery';
import { categoryStore, websiteStore } from './websites';

/** An event's `data`: the article or website as `show` returns it now; undefined once deleted. */
function describer(config: Config): EventDescriber {
  const read = {
    articles: articleStore(config),
    websites: websiteStore(config),
    categories: categoryStore(config),
  };
  return async (accountId, subject) => {
    try {
      return subject.kind === 'article'
        ? await showArticle(read, accountId, subject.uuid)
        : await showWebsite(read, accountId, subject.uuid);
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  };
}

/** Recording events and finishing them (the producers' outbox, the sweeper's re-sends). */
export function eventRecordingDeps(config: Config): EventRecordingDeps {
  return { ...webhookDeliveryDeps(config), describe: describer(config) };
}

function eventOutbox(config: Config): EventOutbox {
  return new EventOutbox(config.tables.webhooks, eventRecordingDeps(config));
}

/** The article store of the worker and the sweeper: generated and failed articles record events. */
export function articlesWithEvents(config: Config): ArticleStore {
  return new DynamoArticleRepository(dynamoDocumentClient(), config.tables, eventOutbox(config));
}

/** Publications whose final state (published, given up) records events. */
export function publicationsWithEvents(config: Config): PublicationStore {
  return new DynamoPublicationRepository(dynamoDocumentClient(), config.tables.articles, eventOutbox(config));
}

/** Websites whose health changes record events. */
export function websitesWithEvents(config: Config): WebsiteStore & WebsiteLookup {
  return new DynamoWebsiteRepository(dynamoDocumentClient(), config.tables.websites, eventOutbox(config));
}
