import { webhookStore } from '../adapters/dependencies';
import { deleteWebhook } from '../core/webhooks/manage-webhooks';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, pathParameters }) =>
  ok(await deleteWebhook({ webhooks: webhookStore() }, accountId, pathParameters.webhook_uuid)),
);
