import { websitesWithEvents } from '../composition/events';
import { websiteDeps } from '../composition/site-access';
import { refreshCategories } from '../core/websites/site-check';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'RefreshCategories',
  (config) => {
    return { ...websiteDeps(config), websites: websitesWithEvents(config) };
  },
  async ({ accountId, pathParameters }, deps) =>
    ok(await refreshCategories(deps, accountId, pathParameters.website_uuid)),
);
