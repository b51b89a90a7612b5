import { websiteDeps } from '../adapters/dependencies';
import { refreshCategories } from '../core/websites/site-check';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, pathParameters }) =>
  ok(await refreshCategories(websiteDeps(), accountId, pathParameters.website_uuid)),
);
