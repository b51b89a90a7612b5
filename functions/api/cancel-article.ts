import { articleBeforeGenerationDeps } from '../composition/articles';
import { systemClock } from '../composition/clock';
import { cancelArticle } from '../core/articles/article-actions';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'CancelArticle',
  (config) => ({ ...articleBeforeGenerationDeps(config), clock: systemClock }),
  async ({ accountId, pathParameters }, deps) =>
    ok(await cancelArticle(deps, accountId, pathParameters.article_uuid ?? '')),
);
