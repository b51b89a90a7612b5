/**
 * Recording webhook events and fanning them out: the store and the queue. What signs and sends
 * (standardwebhooks, KMS) is in `webhook-sending.ts`, so producers of events do not bundle it.
 */
import { SqsWebhookQueue } from '../adapters/sqs/sqs-webhook-queue';
import type { WebhookDeliveryDeps } from '../core/webhooks/deliver-webhooks';
import { sqsClient } from '../shared/aws/sqs';
import { type Config, declared } from '../shared/config';
import { systemClock } from './clock';
import { webhookStore } from './webhooks';

/** Fan-out, recording events and the sweeper's re-sends. */
export function webhookDeliveryDeps(config: Config): WebhookDeliveryDeps {
  const queueUrl = declared(config.webhookQueueUrl, 'The webhook queue');
  return {
    webhooks: webhookStore(config),
    queue: new SqsWebhookQueue(sqsClient(), queueUrl),
    clock: systemClock,
  };
}
