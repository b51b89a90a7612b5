import { webhookStore } from '../composition/webhooks';
import { enableWebhook } from '../core/webhooks/manage-webhooks';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'EnableWebhook',
  (config) => ({ webhooks: webhookStore(config) }),
  async ({ accountId, pathParameters }, deps) =>
    ok(await enableWebhook(deps, accountId, pathParameters.webhook_uuid)),
);
