import { readArticleDeps } from '../adapters/dependencies';
import { listGeneratedArticles } from '../core/articles/read-articles';
import { paginationEnvelope } from '../core/pagination';
import { parsePage } from '../core/schema-helpers';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, baseUrl, query }) => {
  const page = await listGeneratedArticles(readArticleDeps(), accountId, parsePage(query));
  return ok(paginationEnvelope(page, `${baseUrl}/v1/articles/list`));
});
