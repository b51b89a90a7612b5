/**
 * Sends the generation message of every queued article again, for a queue that lost its
 * messages (the local runtime's queue lives in moto's memory: a stop, a crash or a restart of
 * moto empties it). Safe to repeat: generation is idempotent, so a message that arrives for an
 * article already generated does nothing.
 */
import type { GenerationQueue, QueuedGenerations } from './ports';

export type { QueuedGeneration, QueuedGenerations } from './ports';

export interface ResendUnfinishedDeps {
  articles: QueuedGenerations;
  queue: GenerationQueue;
}

/** Messages sent at once. */
const PARALLEL_SENDS = 8;

/**
 * `leasesAreDead`: the process that held every lease stopped (a restart of `npm start`), so the
 * leases are ended first and the new deliveries need not wait for them to expire; false when
 * only the queue was lost and this process's workers are still running. `failed`: messages
 * that could not be sent (the queue is down again); the caller decides what then.
 */
export async function resendUnfinishedGenerations(
  deps: ResendUnfinishedDeps,
  options: { leasesAreDead: boolean },
): Promise<{ resent: number; failed: number }> {
  const result = { resent: 0, failed: 0 };
  for await (const page of deps.articles.listQueuedGenerations()) {
    if (options.leasesAreDead) {
      for (const article of page) if (article.leaseOwner) await deps.articles.breakLease(article);
    }
    for (let start = 0; start < page.length; start += PARALLEL_SENDS) {
      const sends = page
        .slice(start, start + PARALLEL_SENDS)
        .map((message) =>
          deps.queue.enqueue({ accountId: message.accountId, articleUuid: message.articleUuid }),
        );
      for (const sent of await Promise.allSettled(sends)) {
        if (sent.status === 'fulfilled') result.resent++;
        else result.failed++;
      }
    }
  }
  return result;
}
