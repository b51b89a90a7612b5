/**
 * SQS adapters of functions that seldom send a message: API routes that record an event only when
 * a website's health changes, and the worker, whose messages need SQS only to put a delivery off
 * (a failed attempt's backoff, a lease another worker holds, storage down) or for an event some
 * account subscribed to. Each adapter loads, with the SQS client, on its first message rather than
 * at init; these functions get the client as a lazy module beside their bundle (`lazyModulesOf`
 * in lib/constructs/lazy-modules.ts). Nothing of SQS is imported here.
 *
 * require() rather than import(): Jest runs CommonJS, where import() needs an experimental VM flag.
 */
import type { SqsGenerationQueue } from '../adapters/sqs/sqs-generation-queue';
import type { WebhookQueue } from '../core/webhooks/ports';
import { type Config, declared } from '../shared/config';
import { logger } from '../shared/logger';

type GenerationDeliveries = Pick<SqsGenerationQueue, 'retryDelivery'>;

/** The SQS webhook queue, loaded by the first message sent. */
export function webhookQueueOnDemand(queueUrl: string): WebhookQueue {
  const queue = onFirstUse('the webhook queue', (): WebhookQueue => {
    const {
      SqsWebhookQueue,
    }: typeof import('../adapters/sqs/sqs-webhook-queue') = require('../adapters/sqs/sqs-webhook-queue');
    return new SqsWebhookQueue(sqsClient(), queueUrl);
  });
  return { send: async (messages) => (await queue()).send(messages) };
}

/** The worker's handle on its own deliveries of the generation queue, loaded by the first one put off. */
export function generationDeliveriesOnDemand(config: Config): GenerationDeliveries {
  const queueUrl = declared(config.generationQueueUrl, 'The generation queue');
  const deliveries = onFirstUse('the generation queue', (): GenerationDeliveries => {
    const {
      SqsGenerationQueue,
    }: typeof import('../adapters/sqs/sqs-generation-queue') = require('../adapters/sqs/sqs-generation-queue');
    return new SqsGenerationQueue(sqsClient(), queueUrl);
  });
  return {
    retryDelivery: async (receiptHandle, delaySeconds) =>
      (await deliveries()).retryDelivery(receiptHandle, delaySeconds),
  };
}

/**
 * `load` run once, by the first caller; a failure to load is logged (callers may only count the
 * send as failed) and tried again by the next caller.
 */
export function onFirstUse<T>(what: string, load: () => T): () => Promise<T> {
  let loaded: T | undefined;
  return async () => {
    if (loaded === undefined) {
      try {
        loaded = load();
      } catch (error) {
        logger.error(`Could not load ${what}`, {
          error: error instanceof Error ? error.message : String(error),
        });
        throw error;
      }
    }
    return loaded;
  };
}

function sqsClient() {
  const { sqsClient }: typeof import('../shared/aws/sqs') = require('../shared/aws/sqs');
  return sqsClient();
}
