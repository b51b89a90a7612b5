import { accountStore } from '../composition/accounts';
import { readArticleDeps } from '../composition/articles';
import { systemClock } from '../composition/clock';
import { generationQueue } from '../composition/generation-queue';
import { idempotencyStore } from '../composition/idempotency';
import { createArticle } from '../core/articles/create-article';
import { createArticleSchema } from '../core/articles/create-article-input';
import { parseOrThrow } from '../core/schema-helpers';
import { logger } from '../shared/logger';
import { apiHandler } from './http/api-handler';
import { idempotentOperation } from './http/idempotent-operation';
import { accepted } from './http/responses';

export const handler = apiHandler(
  'CreateArticle',
  (config) => ({
    ...readArticleDeps(config),
    accounts: accountStore(config),
    queue: generationQueue(config),
    clock: systemClock,
    idempotency: idempotencyStore(config),
  }),
  idempotentOperation({
    scope: 'articles.create',
    parse: ({ fields }) => parseOrThrow(createArticleSchema, fields),
    run: async ({ accountId, baseUrl }, deps, input, keyed) => {
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
        input,
        keyed && { articleUuid: keyed.uuid, requestHash: keyed.requestHash },
      );
      const articleUrl = `${baseUrl}/v1/articles/${article.articleUuid}/show`;
      return accepted({
        article_uuid: article.articleUuid,
        article_url: articleUrl,
        info: `The article is on the waiting list. Follow its progress at ${articleUrl}`,
      });
    },
  }),
);
