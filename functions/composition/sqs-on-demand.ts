/**
 * SQS adapters of functions that seldom send a message: API routes that record an event only when
 * a website's health changes, and the worker, whose messages need SQS only for a failed attempt's
 * backoff or an event some account subscribed to. Each adapter loads, with the SQS client, on its
 * first message rather than at init; these functions get the client as a lazy module beside their
 * bundle (`lazyModulesOf` in lib/constructs/lazy-modules.ts). Nothing of SQS is imported here.
 *
 * require() rather than import(): ts-jest runs CommonJS, where import() needs an experimental VM flag.
 */
import type { SqsGenerationQueue } from '../adapters/sqs/sqs-generation-queue';
import type { WebhookQueue } from '../core/webhooks/ports';
import { type Config, declared } from '../shared/config';

type GenerationDeliveries = Pick<SqsGenerationQueue, 'retryDelivery'>;

/** The SQS webhook queue, loaded by the first message sent. */
export function webhookQueueOnDemand(queueUrl: string): WebhookQueue {
  let queue: WebhookQueue | undefined;
  return {
    send: (messages) => {
      if (queue === undefined) {
        const {
          SqsWebhookQueue,
        }: typeof import('../adapters/sqs/sqs-webhook-queue') = require('../adapters/sqs/sqs-webhook-queue');
        queue = new SqsWebhookQueue(sqsClient(), queueUrl);
      }
      return queue.send(messages);
    },
  };
}

/** The worker's handle on its own deliveries of the generation queue, loaded by the first retry backoff. */
export function generationDeliveriesOnDemand(config: Config): GenerationDeliveries {
  const queueUrl = declared(config.generationQueueUrl, 'The generation queue');
  let deliveries: GenerationDeliveries | undefined;
  return {
    retryDelivery: (receiptHandle, delaySeconds) => {
      if (deliveries === undefined) {
        const {
          SqsGenerationQueue,
        }: typeof import('../adapters/sqs/sqs-generation-queue') = require('../adapters/sqs/sqs-generation-queue');
        deliveries = new SqsGenerationQueue(sqsClient(), queueUrl);
      }
      return deliveries.retryDelivery(receiptHandle, delaySeconds);
    },
  };
}

function sqsClient() {
  const { sqsClient }: typeof import('../shared/aws/sqs') = require('../shared/aws/sqs');
  return sqsClient();
}
