/**
 * Recording webhook events and fanning them out: the store and the queue. What signs and sends
 * (standardwebhooks, KMS) is in `webhook-sending.ts`, so producers of events do not bundle it.
 */
import type { WebhookDeliveryDeps } from '../core/webhooks/deliver-webhooks';
import { type Config, declared } from '../shared/config';
import { systemClock } from './clock';
import { webhookQueueOnDemand } from './sqs-on-demand';
import { webhookStore } from './webhooks';

/** Fan-out, recording events and the sweeper's re-sends. */
export function webhookDeliveryDeps(config: Config): WebhookDeliveryDeps {
  return {
    webhooks: webhookStore(config),
    queue: webhookQueueOnDemand(declared(config.webhookQueueUrl, 'The webhook queue')),
    clock: systemClock,
  };
}
