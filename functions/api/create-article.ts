import { accountStore } from '../composition/accounts';
import { articleCreation } from '../composition/articles';
import { systemClock } from '../composition/clock';
import { generationQueue } from '../composition/generation-queue';
import { idempotencyStore } from '../composition/idempotency';
import { siteIndexStore } from '../composition/site-index';
import { sourcePolicy } from '../composition/source-policy';
import { categoryStore, siteProfileStore, websiteStore } from '../composition/websites';
import { createArticle } from '../core/articles/create-article';
import { createArticleSchema } from '../core/articles/create-article-input';
import {
  createRequestFingerprint,
  namingProfileDefaults,
  parseCreateArticleRequest,
} from '../core/articles/create-article-request';
import { waitingListInfo } from '../core/articles/waiting-list-info';
import { logger } from '../shared/logger';
import { apiHandler } from './http/api-handler';
import { idempotentOperation } from './http/idempotent-operation';
import { accepted } from './http/responses';

export const handler = apiHandler(
  'CreateArticle',
  (config) => ({
    articles: articleCreation(config),
    websites: websiteStore(config),
    categories: categoryStore(config),
    siteIndex: siteIndexStore(config),
    accounts: accountStore(config),
    queue: generationQueue(config),
    clock: systemClock,
    idempotency: idempotencyStore(config),
    profiles: siteProfileStore(config),
    sourcePolicy: sourcePolicy(config),
    allowPlainHttpImages: config.allowPrivateUrls,
  }),
  idempotentOperation({
    scope: 'articles.create',
    parse: ({ accountId, fields }, deps) => parseCreateArticleRequest(deps, accountId, fields),
    fingerprint: createRequestFingerprint,
    run: async ({ accountId, baseUrl }, deps, request, keyed) => {
      const article = await createArticle(
        {
          ...deps,
          onEnqueueFailure: (error, failed) =>
            logger.error('Could not send the generation message; the sweeper will re-send it', {
              error: error instanceof Error ? error : String(error),
              articleUuid: failed.articleUuid,
            }),
        },
        accountId,
        request.input,
        keyed && { articleUuid: keyed.uuid, requestHash: keyed.requestHash },
        request.profile,
      ).catch((error: unknown) => {
        throw namingProfileDefaults(error, request);
      });
      const articleUrl = `${baseUrl}/v1/articles/${article.articleUuid}/show`;
      return accepted({
        article_uuid: article.articleUuid,
        article_url: articleUrl,
        info: await waitingListInfo(deps, article, articleUrl),
      });
    },
  }),
  { warmUp: createArticleSchema },
);
