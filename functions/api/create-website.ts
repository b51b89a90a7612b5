import { websiteDeps } from '../adapters/dependencies';
import { createWebsite } from '../core/websites/create-website';
import { apiHandler } from './http/api-handler';
import { created } from './http/responses';

export const handler = apiHandler(async ({ accountId, fields }) =>
  created(await createWebsite(websiteDeps(), accountId, fields)),
);
