import { webhookStore } from '../adapters/dependencies';
import { listWebhooks } from '../core/webhooks/manage-webhooks';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId }) =>
  ok(await listWebhooks({ webhooks: webhookStore() }, accountId)),
);
