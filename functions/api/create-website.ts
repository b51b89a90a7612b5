import { idempotencyStore } from '../composition/idempotency';
import { websiteDeps } from '../composition/site-access';
import { parseOrThrow } from '../core/schema-helpers';
import { createWebsite, createWebsiteSchema } from '../core/websites/create-website';
import { apiHandler } from './http/api-handler';
import { idempotentOperation } from './http/idempotent-operation';
import { created } from './http/responses';

export const handler = apiHandler(
  'CreateWebsite',
  (config) => ({ ...websiteDeps(config), idempotency: idempotencyStore(config) }),
  idempotentOperation({
    scope: 'websites.create',
    parse: ({ fields }) => parseOrThrow(createWebsiteSchema, fields),
    // The password stays out of the stored fingerprint: it is kept nowhere unencrypted, not even hashed.
    fingerprint: ({ url, login }) => ({ url, login }),
    run: async ({ accountId }, deps, input) => created(await createWebsite(deps, accountId, input)),
  }),
);
