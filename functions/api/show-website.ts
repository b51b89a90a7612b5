import { websiteStore } from '../adapters/dependencies';
import { showWebsite } from '../core/websites/read-websites';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, pathParameters }) =>
  ok(await showWebsite({ websites: websiteStore() }, accountId, pathParameters.website_uuid)),
);
