/**
 * SQS-triggered worker: generates each queued article, then publishes it to its website.
 * Failed records are reported back (partial batch response) and delivered again; the last
 * delivery fails the article and refunds its credits instead.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { z } from 'zod';
import { publishDeps } from '../adapters/dependencies';
import { generationDeps } from '../adapters/model-dependencies';
import { generateQueuedArticle } from '../core/articles/generate-article';
import { publishArticle } from '../core/publishing/publish-article';
import { logger } from '../shared/logger';
import { runtimeSettings } from '../shared/runtime-settings';

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
  let result: Awaited<ReturnType<typeof generateQueuedArticle>>;
  try {
    result = await generateQueuedArticle(generationDeps(), parsed.data, { isLastAttempt });
  } catch (error) {
    logger.warn('Generation attempt failed; the queue will deliver the message again', {
      articleUuid: parsed.data.articleUuid,
      receiveCount,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    throw error;
  }
  const { outcome, article, failure } = result;
  if (failure) {
    logger.error('Generation failed for good; the article is in error and its credits were refunded', {
      articleUuid: parsed.data.articleUuid,
      receiveCount,
      error: failure,
    });
  }
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
  if (outcome === 'generated' && article?.websiteUuid) await publishNow(parsed.data);
}

/**
 * First publication attempt right after generation. A failure never fails the record: the
 * article stays generated and the sweeper retries the publication (see publishArticle).
 */
async function publishNow(message: z.infer<typeof messageSchema>): Promise<void> {
  try {
    const outcome = await publishArticle(publishDeps(), message);
    logger.info('publication', { articleUuid: message.articleUuid, outcome });
  } catch (error) {
    logger.error('Publication attempt failed; the sweeper will retry it', {
      articleUuid: message.articleUuid,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

function safeJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * A BatchProcessor keeps the state of one batch, so each invocation gets its own: the local
 * runtime runs several invocations at once in one process.
 */
export async function handler(event: SQSEvent, context: Context) {
  return processPartialResponse(event, processRecord, new BatchProcessor(EventType.SQS), {
    context,
    throwOnFullBatchFailure: false,
  });
}
