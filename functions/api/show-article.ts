import { readArticleDeps } from '../composition/articles';
import { showArticle } from '../core/articles/read-articles';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ShowArticle',
  readArticleDeps,
  async ({ accountId, pathParameters }, deps) =>
    ok(await showArticle(deps, accountId, pathParameters.article_uuid ?? '')),
);
