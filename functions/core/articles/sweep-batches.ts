/**
 * The sweeper's batch step: finishes the article writes of a batch whose create stopped half-way
 * (from its stored requests), and records `batch.completed` once every item is final.
 */
import { BATCH_CHECK_INTERVAL_MS, countStatuses } from './batch';
import type { BatchSweeps } from './batch-ports';
import type { Clock } from './ports';
import { everyItemFinal, itemStatuses } from './read-batches';

export interface SweepBatchesDeps {
  batches: BatchSweeps;
  clock: Clock;
}

/** Batches looked at per run (the rest wait for the next run). */
export const BATCHES_PER_SWEEP = 100;

export async function sweepBatches(
  deps: SweepBatchesDeps,
  signal?: AbortSignal,
): Promise<{ finished: number; completed: number; waiting: number }> {
  const now = deps.clock();
  const due = await deps.batches.listDue(now.toISOString(), BATCHES_PER_SWEEP);
  const result = { finished: 0, completed: 0, waiting: 0 };
  for (const batch of due) {
    if (signal?.aborted) break;
    if (!batch.written) {
      await deps.batches.finishWrites(batch);
      result.finished++;
    }
    const statuses = itemStatuses(batch, await deps.batches.items(batch));
    if (everyItemFinal(statuses)) {
      const completed = await deps.batches.complete(batch, now.toISOString(), countStatuses(statuses));
      if (completed) result.completed++;
    } else {
      await deps.batches.postpone(batch, new Date(now.getTime() + BATCH_CHECK_INTERVAL_MS).toISOString());
      result.waiting++;
    }
  }
  return result;
}
