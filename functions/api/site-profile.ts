import { systemClock } from '../composition/clock';
import { sourcePolicy } from '../composition/source-policy';
import { categoryStore, siteProfileStore, websiteStore } from '../composition/websites';
import { putSiteProfile, showSiteProfile } from '../core/websites/manage-site-profile';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'SiteProfile',
  (config) => ({
    websites: websiteStore(config),
    categories: categoryStore(config),
    profiles: siteProfileStore(config),
    clock: systemClock,
    // What a create of this deployment allows: a default every create would refuse is a 422 at PUT.
    sourcePolicy: sourcePolicy(config),
    allowPlainHttpImages: config.allowPrivateUrls,
  }),
  async ({ method, accountId, pathParameters, fields }, deps) =>
    ok(
      method === 'PUT'
        ? await putSiteProfile(deps, accountId, pathParameters.website_uuid, fields)
        : await showSiteProfile(deps, accountId, pathParameters.website_uuid),
    ),
);
