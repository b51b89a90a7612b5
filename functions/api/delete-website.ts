import { categoryStore, websiteStore } from '../adapters/dependencies';
import { deleteWebsite } from '../core/websites/delete-website';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, pathParameters }) =>
  ok(
    await deleteWebsite(
      { websites: websiteStore(), categories: categoryStore() },
      accountId,
      pathParameters.website_uuid,
    ),
  ),
);
