import { categoryStore, websiteStore } from '../adapters/dependencies';
import { PER_PAGE, paginationEnvelope } from '../core/pagination';
import { parsePage } from '../core/schema-helpers';
import { listCategories } from '../core/websites/read-websites';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, baseUrl, query, pathParameters }) => {
  const websiteUuid = pathParameters.website_uuid;
  const page = await listCategories(
    { websites: websiteStore(), categories: categoryStore() },
    accountId,
    websiteUuid,
    parsePage(query),
    PER_PAGE,
  );
  return ok(paginationEnvelope(page, `${baseUrl}/v1/websites/${websiteUuid}/categories`));
});
