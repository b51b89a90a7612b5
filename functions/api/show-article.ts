import { readArticleDeps } from '../adapters/dependencies';
import { showArticle } from '../core/articles/read-articles';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, pathParameters }) =>
  ok(await showArticle(readArticleDeps(), accountId, pathParameters.article_uuid ?? '')),
);
