/** The sweeper's article work: deferred reservations, unsent messages and expired leases. */
import type { AccountStore } from '../accounts';
import { sendForGeneration } from './generation-messages';
import { MAX_GENERATION_ATTEMPTS, WAITING_RECHECK_MS } from './lifecycle-policy';
import type {
  ArticleReservations,
  ArticleSweeps,
  Clock,
  DeferredState,
  GenerationDispatch,
  GenerationLifecycle,
  GenerationQueue,
  ReservationOutcome,
} from './ports';
import { reservationAt } from './reservation-policy';

export interface SweepArticlesDeps {
  articles: ArticleSweeps &
    GenerationDispatch &
    Pick<ArticleReservations, 'retryReservation'> &
    Pick<GenerationLifecycle, 'failGeneration'>;
  accounts: AccountStore;
  queue: GenerationQueue;
  clock: Clock;
}

/** Articles handled per kind of work and sweep; the rest wait for the next run. */
export const SWEEP_BATCH = 100;

/**
 * Re-attempts reservations that are due (credits added, next UTC day), oldest first; none is
 * started once `signal` aborted (the sweep step's budget is spent).
 */
export async function retryDeferredReservations(
  deps: SweepArticlesDeps,
  signal?: AbortSignal,
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
    if (signal?.aborted) break;
    const account = await deps.accounts.get(article.accountId);
    if (!account) continue;
    const outcome = await deps.articles.retryReservation(
      article,
      reservationAt(now, article.estimatedCredits, account.dailyLimit),
    );
    if (outcome === undefined) continue;
    counts[outcome]++;
    if (outcome === 'reserved') await sendForGeneration(deps, article, now);
  }
  return counts;
}

/**
 * Queued articles that need a hand: a message that was never sent, a worker that died (its
 * lease expired), a retry whose delivery never came. Each is sent again — unless its attempts
 * are used up, then it is failed with a refund. An article merely waiting in a long queue is
 * never due here. None is started once `signal` aborted (the sweep step's budget is spent).
 */
export async function recoverStalledGenerations(
  deps: SweepArticlesDeps,
  signal?: AbortSignal,
): Promise<{ resent: number; failed: number; leased: number }> {
  const now = deps.clock();
  const nowIso = now.toISOString();
  const due = await deps.articles.listDue('generation', nowIso, SWEEP_BATCH);
  const result = { resent: 0, failed: 0, leased: 0 };
  for (const article of due) {
    if (signal?.aborted) break;
    if (article.state !== 'queued') continue;
    if (article.leaseExpiresAt !== undefined && article.leaseExpiresAt >= nowIso) {
      // Renewed since it was listed: a worker is on it.
      await deps.articles.postponeCheck(article, article.leaseExpiresAt);
      result.leased++;
    } else if ((article.generationAttempts ?? 0) >= MAX_GENERATION_ATTEMPTS) {
      const reason = `Generation did not finish after ${MAX_GENERATION_ATTEMPTS} attempts${article.lastError ? ` (last error: ${article.lastError})` : ''}.`;
      if (await deps.articles.failGeneration(article, reason, nowIso)) result.failed++;
    } else if (await sendForGeneration(deps, article, now)) {
      // Waiting in the queue again, for as long as the queue is long.
      await deps.articles.markResent(article, new Date(now.getTime() + WAITING_RECHECK_MS).toISOString());
      result.resent++;
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
