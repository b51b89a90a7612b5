/** Scheduled sweeper: deferred reservations, stuck generations (and, with websites, publishing and health). */
import { sweepDeps } from '../adapters/dependencies';
import { recoverStuckGenerations, retryDeferredReservations } from '../core/articles/sweep-articles';
import { logger } from '../shared/logger';

export async function handler(): Promise<{ reservations: unknown; stuck: unknown }> {
  const deps = sweepDeps();
  const reservations = await retryDeferredReservations(deps);
  const stuck = await recoverStuckGenerations(deps);
  logger.info('sweep', { reservations, stuck });
  return { reservations, stuck };
}
