/** Scheduled sweeper: deferred reservations, stuck generations, publication retries and website health. */
import { publishDeps, sweepDeps } from '../adapters/dependencies';
import { recoverStuckGenerations, retryDeferredReservations } from '../core/articles/sweep-articles';
import { checkWebsites, retryDuePublications } from '../core/publishing/sweep-publishing';
import { logger } from '../shared/logger';

export async function handler(): Promise<{
  reservations: unknown;
  stuck: unknown;
  publications: unknown;
  websites: unknown;
}> {
  const deps = sweepDeps();
  const reservations = await retryDeferredReservations(deps);
  const stuck = await recoverStuckGenerations(deps);
  const publications = await retryDuePublications(publishDeps());
  const websites = await checkWebsites(publishDeps());
  logger.info('sweep', { reservations, stuck, publications, websites });
  return { reservations, stuck, publications, websites };
}
