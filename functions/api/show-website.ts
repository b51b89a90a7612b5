import { websiteStore } from '../composition/websites';
import { showWebsite } from '../core/websites/read-websites';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ShowWebsite',
  (config) => ({ websites: websiteStore(config) }),
  async ({ accountId, pathParameters }, deps) =>
    ok(await showWebsite(deps, accountId, pathParameters.website_uuid)),
);
