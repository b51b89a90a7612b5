/**
 * Sends the generation message of every queued article again, for a queue that lost its
 * messages (the local runtime's queue lives in moto's memory: a stop, a crash or a restart of
 * moto empties it). Safe to repeat: generation is idempotent, so a message that arrives for an
 * article already generated does nothing.
 */
import type { GenerationMessage, GenerationQueue } from './ports';

export interface QueuedGenerations {
  /** Every article in state `queued` (all accounts), a page at a time. */
  listQueuedGenerations(): AsyncIterable<GenerationMessage[]>;
}

export interface ResendUnfinishedDeps {
  articles: QueuedGenerations;
  queue: GenerationQueue;
}

/** Messages sent at once. */
const PARALLEL_SENDS = 8;

/** `failed`: messages that could not be sent (the queue is down again); the caller decides what then. */
export async function resendUnfinishedGenerations(
  deps: ResendUnfinishedDeps,
): Promise<{ resent: number; failed: number }> {
  const result = { resent: 0, failed: 0 };
  for await (const page of deps.articles.listQueuedGenerations()) {
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
