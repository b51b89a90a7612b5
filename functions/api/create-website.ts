import { websiteDeps } from '../adapters/dependencies';
import { parseOrThrow } from '../core/schema-helpers';
import { createWebsite, createWebsiteSchema } from '../core/websites/create-website';
import { apiHandler } from './http/api-handler';
import { idempotentOperation } from './http/idempotent-operation';
import { created } from './http/responses';

export const handler = apiHandler(
  idempotentOperation({
    scope: 'websites.create',
    parse: ({ fields }) => parseOrThrow(createWebsiteSchema, fields),
    // The password stays out of the stored fingerprint: it is kept nowhere unencrypted, not even hashed.
    fingerprint: ({ url, login }) => ({ url, login }),
    run: async ({ accountId }, input) => created(await createWebsite(websiteDeps(), accountId, input)),
  }),
);
