/** Publishing (the worker's second step and the sweeper's retries and health checks). */
import type { PublishDeps } from '../core/publishing/publish-article';
import type { Config } from '../shared/config';
import { logger } from '../shared/logger';
import { recordFinalPublishFailure } from '../shared/metrics';
import { articleStore } from './articles';
import { systemClock } from './clock';
import { publicationsWithEvents, websitesWithEvents } from './events';
import { imageStore } from './image-links';
import { linkChecker } from './link-checker';
import { cmsClient, passwordCipher } from './site-access';
import { siteIndexStore } from './site-index';
import { categoryStore } from './websites';

/**
 * Everything publishing and the sweeper's website work need; published and failed publications
 * and website health changes record webhook events.
 */
export function publishDeps(config: Config): PublishDeps {
  return {
    articles: articleStore(config),
    publications: publicationsWithEvents(config),
    websites: websitesWithEvents(config),
    categories: categoryStore(config),
    cipher: passwordCipher(config),
    cms: cmsClient(config),
    siteIndex: siteIndexStore(config),
    clock: systemClock,
    links: linkChecker(config),
    ...(config.imageBucketName ? { images: imageStore(config) } : {}),
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
