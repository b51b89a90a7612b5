import { webhookStore } from '../composition/webhooks';
import { listWebhooks } from '../core/webhooks/manage-webhooks';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ListWebhooks',
  (config) => ({ webhooks: webhookStore(config) }),
  async ({ accountId }, deps) => ok(await listWebhooks(deps, accountId)),
);
