import { manageWebhookDeps } from '../adapters/dependencies';
import { createWebhook } from '../core/webhooks/manage-webhooks';
import { apiHandler } from './http/api-handler';
import { created } from './http/responses';

export const handler = apiHandler(async ({ accountId, fields }) =>
  created(await createWebhook(manageWebhookDeps(), accountId, fields)),
);
