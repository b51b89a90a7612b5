/**
 * SQS-triggered worker: generates each queued article, then publishes it to its website.
 * Failed records are reported back (partial batch response) and delivered again; the last
 * delivery fails the article and refunds its credits instead.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { z } from 'zod';
import { generationDeps } from '../adapters/dependencies';
import { generateQueuedArticle } from '../core/articles/generate-article';
import { logger } from '../shared/logger';
import { runtimeSettings } from '../shared/runtime-settings';

const processor = new BatchProcessor(EventType.SQS);

const messageSchema = z.object({ accountId: z.string().min(1), articleUuid: z.string().min(1) });

async function processRecord(record: SQSRecord): Promise<void> {
  const parsed = messageSchema.safeParse(safeJson(record.body));
  if (!parsed.success) {
    // A message no delivery can fix: drop it instead of retrying it into the dead-letter queue.
    logger.error('Ignoring a malformed generation message', { messageId: record.messageId });
    return;
  }
  const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
  const isLastAttempt = receiveCount >= runtimeSettings.maxReceiveCount;
  const { outcome, article } = await generateQueuedArticle(generationDeps(), parsed.data, { isLastAttempt });
  logger.info('generation', {
    articleUuid: parsed.data.articleUuid,
    outcome,
    receiveCount,
    ...(article?.state === 'generated'
      ? {
          promptTokens: article.promptTokens,
          completionTokens: article.completionTokens,
          model: article.providerModel,
        }
      : {}),
  });
  // Publishing to the linked website (issue 4) follows generation here.
}

function safeJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export async function handler(event: SQSEvent, context: Context) {
  return processPartialResponse(event, processRecord, processor, { context, throwOnFullBatchFailure: false });
}
