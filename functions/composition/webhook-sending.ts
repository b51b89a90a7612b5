/** Signed sending: the secret cipher and the signed sender (through the SSRF guard). */
import { SignedWebhookSender, webhookOutboundPolicy } from '../adapters/webhooks/signed-webhook-sender';
import type { AttemptDeps } from '../core/webhooks/deliver-webhooks';
import type { Config } from '../shared/config';
import { receiverPolicy, secretCipher } from './webhook-creation';
import { webhookDeliveryDeps } from './webhook-delivery';

/** One delivery attempt: signed POST through the SSRF guard. */
export function webhookAttemptDeps(config: Config): AttemptDeps {
  return {
    ...webhookDeliveryDeps(config),
    cipher: secretCipher(config),
    sender: new SignedWebhookSender(webhookOutboundPolicy(receiverPolicy(config))),
  };
}
