/**
 * Recording webhook events and fanning them out: the store and the queue. What signs and sends
 * (standardwebhooks, KMS) is in `webhook-sending.ts`, so producers of events do not bundle it.
 */
import type { WebhookDeliveryDeps } from '../core/webhooks/deliver-webhooks';
import type { WebhookQueue } from '../core/webhooks/ports';
import { type Config, declared } from '../shared/config';
import { systemClock } from './clock';
import { webhookStore } from './webhooks';

/** Fan-out, recording events and the sweeper's re-sends. */
export function webhookDeliveryDeps(config: Config): WebhookDeliveryDeps {
  return {
    webhooks: webhookStore(config),
    queue: webhookQueue(declared(config.webhookQueueUrl, 'The webhook queue')),
    clock: systemClock,
  };
}

/**
 * The SQS webhook queue, loaded with the SQS client by the first message sent, not at init: the
 * API routes that may record an event (a website's health changing) record none on most requests.
 */
function webhookQueue(queueUrl: string): WebhookQueue {
  let queue: WebhookQueue | undefined;
  return {
    send: (messages) => {
      if (queue === undefined) {
        // require() rather than import(): ts-jest runs CommonJS, where import() needs an experimental VM flag.
        const {
          SqsWebhookQueue,
        }: typeof import('../adapters/sqs/sqs-webhook-queue') = require('../adapters/sqs/sqs-webhook-queue');
        const { sqsClient }: typeof import('../shared/aws/sqs') = require('../shared/aws/sqs');
        queue = new SqsWebhookQueue(sqsClient(), queueUrl);
      }
      return queue.send(messages);
    },
  };
}
