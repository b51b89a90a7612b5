import { retryArticleDeps } from '../adapters/dependencies';
import { retryArticle } from '../core/articles/article-actions';
import { apiHandler } from './http/api-handler';
import { accepted } from './http/responses';

export const handler = apiHandler(async ({ accountId, pathParameters }) =>
  accepted(await retryArticle(retryArticleDeps(), accountId, pathParameters.article_uuid ?? '')),
);
