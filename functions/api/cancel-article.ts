import { cancelArticleDeps } from '../adapters/dependencies';
import { cancelArticle } from '../core/articles/article-actions';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, pathParameters }) =>
  ok(await cancelArticle(cancelArticleDeps(), accountId, pathParameters.article_uuid ?? '')),
);
