/**
 * Consumes the webhook queue: `event` messages fan out to the subscribed endpoints, `delivery`
 * messages make one signed attempt (see functions/core/webhooks/deliver-webhooks.ts). Records
 * run in parallel; a record that throws (storage or queue error) comes back from the queue.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { webhookAttemptDeps } from '../composition/webhook-sending';
import { attemptDelivery, fanOut } from '../core/webhooks/deliver-webhooks';
import { composition } from '../shared/composition';
import { logger } from '../shared/logger';

/** Fan-out uses the attempt's store, queue and clock (a subset of it). */
const composed = composition('WebhookDispatcher', webhookAttemptDeps);

const messageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('event'), accountId: nonEmpty(), eventId: nonEmpty() }),
  z.object({
    kind: z.literal('delivery'),
    accountId: nonEmpty(),
    eventId: nonEmpty(),
    webhookUuid: nonEmpty(),
  }),
]);

function nonEmpty() {
  return z.string().check(z.minLength(1));
}

async function processRecord(record: SQSRecord): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    body = undefined;
  }
  const parsed = messageSchema.safeParse(body);
  if (!parsed.success) {
    logger.error('Ignoring a malformed webhook message', { messageId: record.messageId });
    return;
  }
  const message = parsed.data;
  if (message.kind === 'event') {
    const deliveries = await fanOut(composed().deps, message);
    logger.info('webhook event', { eventId: message.eventId, deliveries });
    return;
  }
  const outcome = await attemptDelivery(composed().deps, message);
  logger.info('webhook delivery', { eventId: message.eventId, webhookUuid: message.webhookUuid, outcome });
}

/** A record that throws comes back from the queue; the reason is logged here. */
async function processLogged(record: SQSRecord): Promise<void> {
  try {
    await processRecord(record);
  } catch (error) {
    logger.error('Webhook message failed; it comes back from the queue', {
      messageId: record.messageId,
      error: error instanceof Error ? error : String(error),
    });
    throw error;
  }
}

/** A BatchProcessor keeps the state of one batch, so each invocation (they may overlap) gets its own. */
export async function handler(event: SQSEvent, context: Context) {
  return processPartialResponse(event, processLogged, new BatchProcessor(EventType.SQS), {
    context,
    throwOnFullBatchFailure: false,
  });
}
