import { webhookStore } from '../composition/webhooks';
import { showWebhook } from '../core/webhooks/manage-webhooks';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ShowWebhook',
  (config) => ({ webhooks: webhookStore(config) }),
  async ({ accountId, pathParameters }, deps) =>
    ok(await showWebhook(deps, accountId, pathParameters.webhook_uuid)),
);
