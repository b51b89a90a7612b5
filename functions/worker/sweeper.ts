/** Scheduled sweeper: deferred reservations, stalled generations, publication retries and website health. */
import { publishDeps, sweepDeps, webhookDeliveryDeps } from '../adapters/dependencies';
import { recoverStalledGenerations, retryDeferredReservations } from '../core/articles/sweep-articles';
import { checkWebsites, retryDuePublications } from '../core/publishing/sweep-publishing';
import { resendDueWebhooks } from '../core/webhooks/deliver-webhooks';
import { logger } from '../shared/logger';
import { recordFinalGenerationFailure } from '../shared/metrics';

type StepResult = unknown;

/**
 * Runs every step even when one fails, so that one bad article or site never stops the rest;
 * a failed step is logged and the run then fails (for the function-error alarm).
 */
export async function handler(): Promise<Record<string, StepResult>> {
  const steps: Record<string, () => Promise<StepResult>> = {
    reservations: () => retryDeferredReservations(sweepDeps()),
    generations: async () => {
      const recovered = await recoverStalledGenerations(sweepDeps());
      recordFinalGenerationFailure(recovered.failed);
      return recovered;
    },
    publications: () => retryDuePublications(publishDeps()),
    websites: () => checkWebsites(publishDeps()),
    webhooks: () => resendDueWebhooks(webhookDeliveryDeps()),
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
