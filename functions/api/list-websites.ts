import { websiteStore } from '../adapters/dependencies';
import { PER_PAGE, paginationEnvelope } from '../core/pagination';
import { parsePage } from '../core/schema-helpers';
import { listWebsites } from '../core/websites/read-websites';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, baseUrl, query }) => {
  const page = await listWebsites({ websites: websiteStore() }, accountId, parsePage(query), PER_PAGE);
  return ok(paginationEnvelope(page, `${baseUrl}/v1/websites/list`));
});
