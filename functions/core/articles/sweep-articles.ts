/** The sweeper's article work: deferred reservations and generations that never finished. */
import type { AccountStore } from '../accounts';
import type { Article } from './article';
import type { ArticleStore, Clock, DeferredState, GenerationQueue, ReservationOutcome } from './ports';
import { reservationAt, STUCK_AFTER_MS } from './reservation-policy';

export interface SweepArticlesDeps {
  articles: ArticleStore;
  accounts: AccountStore;
  queue: GenerationQueue;
  clock: Clock;
}

/** Articles handled per bucket and sweep; the rest wait for the next run. */
export const SWEEP_BATCH = 100;
/** Re-sends of a stuck article's message before it is failed and refunded. */
export const MAX_REQUEUES = 1;

/** Re-attempts reservations that are due (credits added, next UTC day), oldest first. */
export async function retryDeferredReservations(
  deps: SweepArticlesDeps,
): Promise<Record<ReservationOutcome, number>> {
  const now = deps.clock();
  const due = await deps.articles.listDue('reservation', now.toISOString(), SWEEP_BATCH);
  const counts: Record<ReservationOutcome, number> = {
    reserved: 0,
    not_enough_credits: 0,
    daily_limit_reached: 0,
  };
  const byCreation = [...due].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  for (const article of byCreation) {
    const account = await deps.accounts.get(article.accountId);
    if (!account) continue;
    const outcome = await deps.articles.retryReservation(
      article,
      reservationAt(now, article.estimatedCredits, account.dailyLimit),
    );
    if (outcome === undefined) continue;
    counts[outcome]++;
    if (outcome === 'reserved') await enqueueOrRetrySoon(deps, article, now);
  }
  return counts;
}

/**
 * Queued articles still not generated long after every delivery should have finished: the
 * message was lost or dead-lettered. Sent once more; after that, failed with a refund.
 */
export async function recoverStuckGenerations(
  deps: SweepArticlesDeps,
): Promise<{ requeued: number; failed: number }> {
  const now = deps.clock();
  const due = await deps.articles.listDue('generation', now.toISOString(), SWEEP_BATCH);
  const result = { requeued: 0, failed: 0 };
  for (const article of due) {
    if ((article.requeues ?? 0) < MAX_REQUEUES) {
      // Counted only once the message is out; a failed send is tried again at the next sweep.
      if (!(await enqueueOrRetrySoon(deps, article, now))) continue;
      await deps.articles.markRequeued(article, new Date(now.getTime() + STUCK_AFTER_MS).toISOString());
      result.requeued++;
    } else if (
      await deps.articles.failGeneration(
        article,
        'Generation did not finish after every retry.',
        now.toISOString(),
      )
    ) {
      result.failed++;
    }
  }
  return result;
}

/**
 * After `credits add` (state `not_enough_credits`) or a raised daily limit
 * (`daily_limit_reached`): the account's articles waiting for it are tried at the next sweep.
 */
export async function makeDeferralsDue(
  deps: Pick<SweepArticlesDeps, 'articles' | 'clock'>,
  accountId: string,
  state: DeferredState,
): Promise<number> {
  return deps.articles.makeDeferralsDue(accountId, state, deps.clock().toISOString());
}

/** Sends the generation message; when that fails, the article is due for the next sweep. */
async function enqueueOrRetrySoon(deps: SweepArticlesDeps, article: Article, now: Date): Promise<boolean> {
  try {
    await deps.queue.enqueue({ accountId: article.accountId, articleUuid: article.articleUuid });
    return true;
  } catch {
    await deps.articles.postponeStuckCheck(article, now.toISOString());
    return false;
  }
}
