import { accountStore } from '../composition/accounts';
import { generationDispatch } from '../composition/articles';
import { batchStore } from '../composition/batches';
import { systemClock } from '../composition/clock';
import { generationQueue } from '../composition/generation-queue';
import { idempotencyStore } from '../composition/idempotency';
import { siteIndexStore } from '../composition/site-index';
import { sourcePolicy } from '../composition/source-policy';
import { categoryStore, siteProfileStore, websiteStore } from '../composition/websites';
import { parseBatchRequest } from '../core/articles/batch-input';
import { createArticleSchema } from '../core/articles/create-article-input';
import { createBatch } from '../core/articles/create-batch';
import { acceptedBatchAnswer } from '../core/articles/read-batches';
import { logger } from '../shared/logger';
import { apiHandler } from './http/api-handler';
import { type BatchBody, parseBatchBody } from './http/batch-body';
import { idempotentOperation } from './http/idempotent-operation';
import { accepted } from './http/responses';

export const handler = apiHandler(
  'CreateBatch',
  (config) => ({
    batches: batchStore(config),
    articles: generationDispatch(config),
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
    onEnqueueFailure: (error: unknown, article: { articleUuid: string }) =>
      logger.error('Could not send the generation message; the sweeper will re-send it', {
        error: error instanceof Error ? error : String(error),
        articleUuid: article.articleUuid,
      }),
  }),
  idempotentOperation({
    scope: 'articles.batch',
    parse: ({ fields, query }) => {
      const body = fields.batch as BatchBody;
      return parseBatchRequest({ ...body, partialInQuery: query.partial });
    },
    run: async ({ accountId, baseUrl }, deps, request, keyed) => {
      const batch = await createBatch(
        deps,
        accountId,
        request,
        keyed && { batchUuid: keyed.uuid, requestHash: keyed.requestHash },
      );
      return accepted(acceptedBatchAnswer(batch, baseUrl));
    },
  }),
  { warmUp: createArticleSchema, parseBody: parseBatchBody },
);
