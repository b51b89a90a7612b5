import { createWebhookDeps } from '../composition/webhook-creation';
import { createWebhook } from '../core/webhooks/create-webhook';
import { apiHandler } from './http/api-handler';
import { created } from './http/responses';

export const handler = apiHandler('CreateWebhook', createWebhookDeps, async ({ accountId, fields }, deps) =>
  created(await createWebhook(deps, accountId, fields)),
);
