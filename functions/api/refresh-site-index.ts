import { siteIndexDeps } from '../composition/site-index-source';
import { websiteStore } from '../composition/websites';
import { refreshWebsiteIndex } from '../core/websites/site-index';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'RefreshSiteIndex',
  (config) => ({ ...siteIndexDeps(config), websites: websiteStore(config) }),
  async ({ accountId, pathParameters }, deps) =>
    ok(await refreshWebsiteIndex(deps, accountId, pathParameters.website_uuid)),
);
