import { readArticleDeps } from '../composition/articles';
import { listGeneratedArticles } from '../core/articles/read-articles';
import { parsePage } from '../core/page-query';
import { paginationEnvelope } from '../core/pagination';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ListArticles',
  readArticleDeps,
  async ({ accountId, baseUrl, query }, deps) => {
    const page = await listGeneratedArticles(deps, accountId, parsePage(query));
    return ok(paginationEnvelope(page, `${baseUrl}/v1/articles/list`));
  },
);
