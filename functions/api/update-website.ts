import { websitesWithEvents } from '../composition/events';
import { publicationStore } from '../composition/publications';
import { websiteDeps } from '../composition/site-access';
import { siteIndexStore } from '../composition/site-index';
import { updateWebsite } from '../core/websites/update-website';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'UpdateWebsite',
  (config) => {
    const deps = websiteDeps(config);
    return {
      ...deps,
      websites: websitesWithEvents(config),
      publications: publicationStore(config),
      siteIndex: siteIndexStore(config),
    };
  },
  async ({ accountId, pathParameters, fields }, deps) =>
    ok(await updateWebsite(deps, accountId, pathParameters.website_uuid, fields)),
);
