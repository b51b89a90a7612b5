/**
 * Scheduled sweeper: deferred reservations, stalled generations, expired outline reviews, publication retries, scheduled
 * posts read back after their time, website health and webhook re-sends.
 */
import { accountStore } from '../composition/accounts';
import { systemClock } from '../composition/clock';
import { articlesWithEvents, batchesWithEvents, eventResendDeps } from '../composition/events';
import { generationQueue } from '../composition/generation-queue';
import { publicationStore } from '../composition/publications';
import { publishDeps } from '../composition/publishing';
import { runSweep, type SweepStepName, sweepSteps } from '../core/sweep-run';
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
    /** Outline reviews that expired: cancelled with a refund (outline-review.ts). */
    outlines: { articles: articlesWithEvents(config), clock: systemClock },
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
    webhooks: eventResendDeps(config),
    /** Batches: interrupted creates finished, completion recorded with `batch.completed`. */
    batches: { batches: batchesWithEvents(config), clock: systemClock },
  };
});

/**
 * Runs every step, each within its budget and in the order of `runSweep` (store-only steps
 * first, then the steps that call customer sites side by side), so that hanging sites never
 * starve webhook re-sends or scheduled read-backs; a failed step is logged and the run then
 * fails (for the function-error alarm).
 */
export async function handler(): Promise<Partial<Record<SweepStepName, unknown>>> {
  const { deps } = composed();
  const { results, failed, overBudget, unfinished } = await runSweep(
    sweepSteps({ ...deps, onFinalFailures: recordFinalGenerationFailure }),
    (step, error) =>
      logger.error('Sweeper step failed', { step, error: error instanceof Error ? error : String(error) }),
  );
  logger.info('sweep', {
    ...results,
    ...(overBudget.length > 0 ? { overBudget } : {}),
    ...(unfinished.length > 0 ? { unfinished } : {}),
  });
  if (failed.length > 0) throw new Error(`Sweeper steps failed: ${failed.join(', ')}`);
  return results;
}
