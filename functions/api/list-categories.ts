import { categoryStore, websiteStore } from '../composition/websites';
import { parsePage } from '../core/page-query';
import { PER_PAGE, paginationEnvelope } from '../core/pagination';
import { listCategories } from '../core/websites/read-websites';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ListCategories',
  (config) => ({ websites: websiteStore(config), categories: categoryStore(config) }),
  async ({ accountId, baseUrl, query, pathParameters }, deps) => {
    const websiteUuid = pathParameters.website_uuid;
    const page = await listCategories(deps, accountId, websiteUuid, parsePage(query), PER_PAGE);
    return ok(paginationEnvelope(page, `${baseUrl}/v1/websites/${websiteUuid}/categories`));
  },
);
