/** Webhook secrets and signed sending: the secret cipher and the signed sender (through the SSRF guard). */
import { KmsWebhookSecretCipher } from '../adapters/kms/webhook-secret-cipher';
import {
  ReceiverUrlGuard,
  SignedWebhookSender,
  webhookOutboundPolicy,
} from '../adapters/webhooks/signed-webhook-sender';
import { systemResolver } from '../adapters/wordpress/ssrf-guard';
import type { CreateWebhookDeps } from '../core/webhooks/create-webhook';
import type { AttemptDeps } from '../core/webhooks/deliver-webhooks';
import { kmsClient } from '../shared/aws/kms';
import { type Config, declared } from '../shared/config';
import { systemClock } from './clock';
import { webhookDeliveryDeps } from './webhook-delivery';
import { webhookStore } from './webhooks';

function secretCipher(config: Config): KmsWebhookSecretCipher {
  return new KmsWebhookSecretCipher(kmsClient(), declared(config.sitePasswordKeyId, 'The site-password key'));
}

/** Outbound policy of webhook receivers: the SSRF guard, off only in local mode. */
function receiverPolicy(config: Config) {
  return { allowPrivate: config.allowPrivateUrls, resolve: systemResolver };
}

/** Creating a webhook: its store, the secret cipher and the receiver URL guard. */
export function createWebhookDeps(config: Config): CreateWebhookDeps {
  return {
    webhooks: webhookStore(config),
    cipher: secretCipher(config),
    urls: new ReceiverUrlGuard(receiverPolicy(config)),
    clock: systemClock,
  };
}

/** One delivery attempt: signed POST through the SSRF guard. */
export function webhookAttemptDeps(config: Config): AttemptDeps {
  return {
    ...webhookDeliveryDeps(config),
    cipher: secretCipher(config),
    sender: new SignedWebhookSender(webhookOutboundPolicy(receiverPolicy(config))),
  };
}
