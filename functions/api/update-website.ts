import { publicationStore, websiteDeps, websitesWithEvents } from '../adapters/dependencies';
import { updateWebsite } from '../core/websites/update-website';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, pathParameters, fields }) =>
  ok(
    await updateWebsite(
      { ...websiteDeps(), websites: websitesWithEvents(), publications: publicationStore() },
      accountId,
      pathParameters.website_uuid,
      fields,
    ),
  ),
);
