/**
 * SQS-triggered worker: generates each queued article, then publishes it to its website.
 * A failed attempt is reported back (partial batch response) after its delivery was set to
 * come back after the retry backoff; the last attempt fails the article and refunds it.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { systemClock } from '../composition/clock';
import { articlesWithEvents } from '../composition/events';
import { imageDeps } from '../composition/images';
import { modelProvider } from '../composition/model';
import { publishDeps } from '../composition/publishing';
import { generationSiteLinks } from '../composition/site-index-source';
import { sourceDeps } from '../composition/sources';
import { generationDeliveriesOnDemand } from '../composition/sqs-on-demand';
import { websiteStore } from '../composition/websites';
import { deliveryKept, generateQueuedArticle } from '../core/articles/generate-article';
import { storageFailureRetryDelaySeconds } from '../core/articles/lifecycle-policy';
import { publishArticle } from '../core/publishing/publish-article';
import { composition } from '../shared/composition';
import { generationTimings } from '../shared/config';
import { logger } from '../shared/logger';
import { recordFinalGenerationFailure } from '../shared/metrics';

const composed = composition('GenerationWorker', (config) => {
  return {
    /** Generated and failed articles record webhook events. */
    generation: {
      articles: articlesWithEvents(config),
      models: modelProvider(config),
      clock: systemClock,
      sources: sourceDeps(config),
      websites: websiteStore(config),
      siteLinks: generationSiteLinks(config),
      images: imageDeps(config),
      timings: generationTimings(process.env),
      onImageFailure: (article: { articleUuid: string }, slot: string, reason: string) =>
        logger.warn('An image could not be had; the article goes without it and its credits come back', {
          articleUuid: article.articleUuid,
          slot,
          reason,
        }),
    },
    publishing: publishDeps(config),
    /** The worker's handle on its own deliveries (retry backoff). */
    deliveries: generationDeliveriesOnDemand(config),
  };
});

const messageSchema = z.object({
  accountId: z.string().check(z.minLength(1)),
  articleUuid: z.string().check(z.minLength(1)),
});

/** The attempt failed and its delivery comes back after the backoff: keep the message. */
class RetryScheduled extends Error {}

async function processRecord(record: SQSRecord): Promise<void> {
  const parsed = messageSchema.safeParse(safeJson(record.body));
  if (!parsed.success) {
    // A message no delivery can fix: drop it instead of retrying it into the dead-letter queue.
    logger.error('Ignoring a malformed generation message', { messageId: record.messageId });
    return;
  }
  const { articleUuid } = parsed.data;
  const { deps } = composed();
  const retryAfter = (delaySeconds: number) =>
    deps.deliveries.retryDelivery(record.receiptHandle, delaySeconds);
  let result: Awaited<ReturnType<typeof generateQueuedArticle>>;
  try {
    result = await generateQueuedArticle(deps.generation, parsed.data, { retryAfter });
  } catch (error) {
    // Storage failed (before an attempt could be counted, or while one held the lease and could
    // not give it back): back after the backoff by receive count, and once that lease ran out
    // (after maxReceiveCount receives the message goes to the dead-letter queue).
    const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
    const retryInSeconds = storageFailureRetryDelaySeconds(receiveCount, deps.generation.timings);
    await retryAfter(retryInSeconds).catch(() => undefined);
    logger.warn('Generation could not run; the delivery comes back', {
      articleUuid,
      retryInSeconds,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    throw error;
  }
  const { outcome, article, failure } = result;
  if (outcome === 'failed') {
    recordFinalGenerationFailure();
    logger.error('Generation failed for good; the article is in error and its credits were refunded', {
      articleUuid,
      attempts: article?.generationAttempts,
      error: failure,
    });
  }
  logger.info('generation', {
    articleUuid,
    outcome,
    ...(result.retryInSeconds !== undefined ? { retryInSeconds: result.retryInSeconds, error: failure } : {}),
    ...(article?.state === 'generated' && outcome === 'generated'
      ? {
          promptTokens: article.promptTokens,
          completionTokens: article.completionTokens,
          model: article.providerModel,
        }
      : {}),
  });
  // Only a retry keeps its delivery; a duplicate, or an attempt that lost its lease, is deleted
  // (the lease holder or the sweeper carries the article on).
  if (deliveryKept(outcome)) throw new RetryScheduled(failure);
  // Just generated, or generated earlier with its publication still to do (a client's retry,
  // or a message sent again after a restart).
  if (article?.state === 'generated' && article.websiteUuid && article.publishState === 'pending') {
    await publishNow(parsed.data);
  }
}

/**
 * Publication attempt right after generation. A failure never fails the record: the article
 * stays generated and the sweeper retries the publication (see publishArticle).
 */
async function publishNow(message: z.infer<typeof messageSchema>): Promise<void> {
  try {
    const outcome = await publishArticle(composed().deps.publishing, message);
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
