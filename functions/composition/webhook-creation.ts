/**
 * Creating a webhook endpoint: its store, the secret cipher and the receiver URL guard. Nothing of
 * signed sending (standardwebhooks) is imported here: CreateWebhook signs nothing.
 */
import { KmsWebhookSecretCipher } from '../adapters/kms/webhook-secret-cipher';
import { ReceiverUrlGuard } from '../adapters/webhooks/receiver-url-guard';
import { systemResolver } from '../adapters/wordpress/ssrf-guard';
import type { CreateWebhookDeps } from '../core/webhooks/create-webhook';
import { kmsClient } from '../shared/aws/kms';
import { type Config, declared } from '../shared/config';
import { systemClock } from './clock';
import { webhookStore } from './webhooks';

/** The webhook-secret cipher (the site-password key, another encryption context). */
export function secretCipher(config: Config): KmsWebhookSecretCipher {
  return new KmsWebhookSecretCipher(kmsClient(), declared(config.sitePasswordKeyId, 'The site-password key'));
}

/** Outbound policy of webhook receivers: the SSRF guard, off only in local mode. */
export function receiverPolicy(config: Config) {
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
