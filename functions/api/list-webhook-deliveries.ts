import { webhookStore } from '../adapters/dependencies';
import { paginationEnvelope } from '../core/pagination';
import { parsePage } from '../core/schema-helpers';
import { listDeliveries } from '../core/webhooks/manage-webhooks';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(async ({ accountId, baseUrl, query, pathParameters }) => {
  const webhookUuid = pathParameters.webhook_uuid;
  const page = await listDeliveries({ webhooks: webhookStore() }, accountId, webhookUuid, parsePage(query));
  return ok(paginationEnvelope(page, `${baseUrl}/v1/webhooks/${webhookUuid}/deliveries`));
});
