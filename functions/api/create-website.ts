import { idempotencyStore } from '../composition/idempotency';
import { websiteDeps } from '../composition/site-access';
import { parseOrThrow } from '../core/schema-helpers';
import { createWebsite, createWebsiteSchema, registrationFingerprint } from '../core/websites/create-website';
import { apiHandler } from './http/api-handler';
import { idempotentOperation } from './http/idempotent-operation';
import { created } from './http/responses';

export const handler = apiHandler(
  'CreateWebsite',
  (config) => ({ ...websiteDeps(config), idempotency: idempotencyStore(config) }),
  idempotentOperation({
    scope: 'websites.create',
    parse: ({ fields }) => parseOrThrow(createWebsiteSchema, fields),
    fingerprint: registrationFingerprint,
    run: async ({ accountId }, deps, input) => created(await createWebsite(deps, accountId, input)),
  }),
);
