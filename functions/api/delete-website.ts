import { siteIndexStore } from '../composition/site-index';
import { categoryStore, websiteStore } from '../composition/websites';
import { deleteWebsite } from '../core/websites/delete-website';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'DeleteWebsite',
  (config) => ({
    websites: websiteStore(config),
    categories: categoryStore(config),
    siteIndex: siteIndexStore(config),
  }),
  async ({ accountId, pathParameters }, deps) =>
    ok(await deleteWebsite(deps, accountId, pathParameters.website_uuid)),
);
