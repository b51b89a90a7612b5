import { systemClock } from '../composition/clock';
import { secretCipher } from '../composition/webhook-creation';
import { webhookStore } from '../composition/webhooks';
import { rotateWebhookSecret } from '../core/webhooks/manage-webhooks';
import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';

export const handler = apiHandler(
  'RotateWebhookSecret',
  (config) => ({ webhooks: webhookStore(config), cipher: secretCipher(config), clock: systemClock }),
  async ({ accountId, pathParameters }, deps) =>
    ok(await rotateWebhookSecret(deps, accountId, pathParameters.webhook_uuid)),
);
