/** Publishing (the worker's second step and the sweeper's retries and health checks). */
import { DynamoPublicationRepository } from '../adapters/dynamodb/publication-repository';
import type { PublicationStore } from '../core/publishing/ports';
import type { PublishDeps } from '../core/publishing/publish-article';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';
import { logger } from '../shared/logger';
import { recordFinalPublishFailure } from '../shared/metrics';
import { articleStore } from './articles';
import { systemClock } from './clock';
import { articleEvents, websitesWithEvents } from './webhooks';
import { categoryStore, cmsClient, passwordCipher, websiteStore } from './websites';

export function publicationStore(config: Config): PublicationStore {
  return new DynamoPublicationRepository(dynamoDocumentClient(), config.tables.articles);
}

/**
 * Everything publishing and the sweeper's website work need; published and failed publications
 * and website health changes record webhook events.
 */
export function publishDeps(config: Config): PublishDeps {
  const articles = articleStore(config);
  const websites = websiteStore(config);
  const categories = categoryStore(config);
  const events = articleEvents(config, { articles, websites, categories });
  return {
    articles,
    publications: events.publications(publicationStore(config)),
    websites: websitesWithEvents(config, websites),
    categories,
    cipher: passwordCipher(config),
    cms: cmsClient(config),
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
