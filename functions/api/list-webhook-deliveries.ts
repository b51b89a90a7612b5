import { webhookStore } from '../composition/webhooks';
import { parsePage } from '../core/page-query';
import { paginationEnvelope } from '../core/pagination';
import { listDeliveries } from '../core/webhooks/manage-webhooks';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'ListWebhookDeliveries',
  (config) => ({ webhooks: webhookStore(config) }),
  async ({ accountId, baseUrl, query, pathParameters }, deps) => {
    const webhookUuid = pathParameters.webhook_uuid;
    const page = await listDeliveries(deps, accountId, webhookUuid, parsePage(query));
    return ok(paginationEnvelope(page, `${baseUrl}/v1/webhooks/${webhookUuid}/deliveries`));
  },
);
