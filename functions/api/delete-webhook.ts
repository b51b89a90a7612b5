import { webhookStore } from '../composition/webhooks';
import { deleteWebhook } from '../core/webhooks/manage-webhooks';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'DeleteWebhook',
  (config) => ({ webhooks: webhookStore(config) }),
  async ({ accountId, pathParameters }, deps) =>
    ok(await deleteWebhook(deps, accountId, pathParameters.webhook_uuid)),
);
