/**
 * Scheduled sweeper: deferred reservations, stalled generations, publication retries, scheduled
 * posts read back after their time, website health and webhook re-sends.
 */
import { accountStore } from '../composition/accounts';
import { systemClock } from '../composition/clock';
import { articlesWithEvents, eventRecordingDeps } from '../composition/events';
import { generationQueue } from '../composition/generation-queue';
import { publicationStore } from '../composition/publications';
import { publishDeps } from '../composition/publishing';
import { recoverStalledGenerations, retryDeferredReservations } from '../core/articles/sweep-articles';
import { confirmScheduledPosts } from '../core/publishing/confirm-scheduled';
import { checkWebsites, retryDuePublications } from '../core/publishing/sweep-publishing';
import { resendDueWebhooks } from '../core/webhooks/deliver-webhooks';
import { composition } from '../shared/composition';
import { logger } from '../shared/logger';
import { recordFinalGenerationFailure } from '../shared/metrics';

const composed = composition('Sweeper', (config) => {
  const publishing = publishDeps(config);
  return {
    /** Failed articles record webhook events. */
    articles: {
      articles: articlesWithEvents(config),
      accounts: accountStore(config),
      queue: generationQueue(config),
      clock: systemClock,
    },
    publishing,
    /** Scheduled posts read back after their time (no event: `article.published` was sent). */
    scheduledPosts: {
      ...publishing,
      publications: publicationStore(config),
      onReadFailed: (ref: { articleUuid: string }, error: unknown) =>
        logger.warn('Could not read a scheduled post back; read again later', {
          articleUuid: ref.articleUuid,
          error: error instanceof Error ? error.message : String(error),
        }),
    },
    webhooks: eventRecordingDeps(config),
  };
});

type StepResult = unknown;

/**
 * Runs every step even when one fails, so that one bad article or site never stops the rest;
 * a failed step is logged and the run then fails (for the function-error alarm).
 */
export async function handler(): Promise<Record<string, StepResult>> {
  const { deps } = composed();
  const steps: Record<string, () => Promise<StepResult>> = {
    reservations: () => retryDeferredReservations(deps.articles),
    generations: async () => {
      const recovered = await recoverStalledGenerations(deps.articles);
      recordFinalGenerationFailure(recovered.failed);
      return recovered;
    },
    publications: () => retryDuePublications(deps.publishing),
    websites: () => checkWebsites(deps.publishing),
    webhooks: () => resendDueWebhooks(deps.webhooks),
    // Last: reads of slow sites hold nothing else up.
    scheduledPosts: () => confirmScheduledPosts(deps.scheduledPosts),
  };
  const results: Record<string, StepResult> = {};
  const failed: string[] = [];
  for (const [name, step] of Object.entries(steps)) {
    try {
      results[name] = await step();
    } catch (error) {
      failed.push(name);
      logger.error('Sweeper step failed', {
        step: name,
        error: error instanceof Error ? error : String(error),
      });
    }
  }
  logger.info('sweep', results);
  if (failed.length > 0) throw new Error(`Sweeper steps failed: ${failed.join(', ')}`);
  return results;
}
