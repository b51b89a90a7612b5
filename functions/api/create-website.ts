import { idempotencyStore } from '../composition/idempotency';
import { websiteDeps } from '../composition/site-access';
import { siteIndexDeps } from '../composition/site-index-source';
import { parseOrThrow } from '../core/schema-helpers';
import type { SiteAccess } from '../core/websites/cms-client';
import { createWebsite, createWebsiteSchema, registrationFingerprint } from '../core/websites/create-website';
import { registerWebsiteIndex } from '../core/websites/site-index';
import type { Website } from '../core/websites/website';
import { apiHandler } from './http/api-handler';
import { idempotentOperation } from './http/idempotent-operation';
import { created } from './http/responses';

export const handler = apiHandler(
  'CreateWebsite',
  (config) => {
    const indexing = siteIndexDeps(config);
    return {
      ...websiteDeps(config),
      registerIndex: (website: Website, site: SiteAccess, startedAt: Date) =>
        registerWebsiteIndex(indexing, website, startedAt, site),
      idempotency: idempotencyStore(config),
    };
  },
  idempotentOperation({
    scope: 'websites.create',
    parse: ({ fields }) => parseOrThrow(createWebsiteSchema, fields),
    fingerprint: registrationFingerprint,
    run: async ({ accountId }, deps, input) => created(await createWebsite(deps, accountId, input)),
  }),
);
