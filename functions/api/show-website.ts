import { siteIndexStore } from '../composition/site-index';
import { websiteStore } from '../composition/websites';
import { showIndexedWebsite } from '../core/websites/site-index';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ShowWebsite',
  (config) => ({ websites: websiteStore(config), siteIndex: siteIndexStore(config) }),
  async ({ accountId, pathParameters }, deps) =>
    ok(await showIndexedWebsite(deps, accountId, pathParameters.website_uuid)),
);
