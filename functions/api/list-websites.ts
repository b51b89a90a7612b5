import { websiteStore } from '../composition/websites';
import { parsePage } from '../core/page-query';
import { PER_PAGE, paginationEnvelope } from '../core/pagination';
import { listWebsites } from '../core/websites/read-websites';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ListWebsites',
  (config) => ({ websites: websiteStore(config) }),
  async ({ accountId, baseUrl, query }, deps) => {
    const page = await listWebsites(deps, accountId, parsePage(query), PER_PAGE);
    return ok(paginationEnvelope(page, `${baseUrl}/v1/websites/list`));
  },
);
