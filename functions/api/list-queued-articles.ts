import { readArticleDeps } from '../composition/articles';
import { listQueuedArticles } from '../core/articles/read-articles';
import { parsePage } from '../core/page-query';
import { paginationEnvelope } from '../core/pagination';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

/** GET with `?page=` or POST with `page` as form data, as docs/api-contract.md describes. */
export const handler = apiHandler(
  'ListQueuedArticles',
  readArticleDeps,
  async ({ accountId, baseUrl, query, fields }, deps) => {
    const page = await listQueuedArticles(deps, accountId, parsePage(query, fields));
    return ok(paginationEnvelope(page, `${baseUrl}/v1/articles/queue`));
  },
);
