/**
 * One sweeper run: its steps, their order and their time budgets, so that no step can starve
 * another. The steps that only touch our own stores and queues (reservations, stalled
 * generations, webhook re-sends) run one after the other in one lane; beside that lane, from
 * the start of the run, the steps that call customer sites (publication retries, site checks,
 * scheduled read-backs) run side by side, each in its own lane. Each
 * step gets an AbortSignal that aborts when its budget is spent: it starts no new item after
 * that, and the run waits for the items in flight at most `graceMs` more (a site call ends
 * within its own timeout), then goes on without it. Hanging sites therefore cost one step its
 * budget, never the run: every step starts in every run, and the run ends within the sweeper's
 * timeout (`SWEEP_WORST_CASE_MS`).
 */

import { type ExpireOutlinesDeps, expireOutlines } from './articles/outline-review';
import {
  recoverStalledGenerations,
  retryDeferredReservations,
  type SweepArticlesDeps,
} from './articles/sweep-articles';
import { type SweepBatchesDeps, sweepBatches } from './articles/sweep-batches';
import { type ConfirmScheduledDeps, confirmScheduledPosts } from './publishing/confirm-scheduled';
import type { PublishDeps } from './publishing/publish-article';
import { checkWebsites, retryDuePublications } from './publishing/sweep-publishing';
import { type EventResendDeps, resendDueWebhooks } from './webhooks/deliver-webhooks';

export interface SweepStep {
  /** Stops starting new items once `signal` aborted (its budget is spent). */
  run(signal: AbortSignal): Promise<unknown>;
}

export type SweepStepName =
  | 'reservations'
  | 'generations'
  | 'outlines'
  | 'batches'
  | 'webhooks'
  | 'publications'
  | 'websites'
  | 'scheduledPosts';

/** Longest one site call may take (10 s, 20 s with the category fallback of a publication). */
export const SITE_CALL_MAX_MS = 20_000;
/** Longest one item of a store-only step may take. */
const STORE_ITEM_MAX_MS = 5_000;

/** Each step's budget (no new item after it) and how long its items in flight are then waited for. */
export const SWEEP_BUDGETS: Record<SweepStepName, { budgetMs: number; graceMs: number }> = {
  reservations: { budgetMs: 20_000, graceMs: STORE_ITEM_MAX_MS },
  generations: { budgetMs: 20_000, graceMs: STORE_ITEM_MAX_MS },
  outlines: { budgetMs: 10_000, graceMs: STORE_ITEM_MAX_MS },
  batches: { budgetMs: 10_000, graceMs: STORE_ITEM_MAX_MS },
  webhooks: { budgetMs: 10_000, graceMs: STORE_ITEM_MAX_MS },
  publications: { budgetMs: 60_000, graceMs: SITE_CALL_MAX_MS },
  websites: { budgetMs: 40_000, graceMs: SITE_CALL_MAX_MS },
  scheduledPosts: { budgetMs: 40_000, graceMs: SITE_CALL_MAX_MS },
};

/** Store-only steps in this order (one lane), beside each site step (a lane each). */
const STORE_STEPS: SweepStepName[] = ['reservations', 'generations', 'outlines', 'batches', 'webhooks'];
const SITE_STEPS: SweepStepName[] = ['publications', 'websites', 'scheduledPosts'];

const longest = (names: SweepStepName[]) =>
  Math.max(...names.map((name) => SWEEP_BUDGETS[name].budgetMs + SWEEP_BUDGETS[name].graceMs));

/** The longest a run can take, however every site behaves (below the sweeper's 120 s timeout). */
export const SWEEP_WORST_CASE_MS = Math.max(
  STORE_STEPS.reduce((sum, name) => sum + SWEEP_BUDGETS[name].budgetMs + SWEEP_BUDGETS[name].graceMs, 0),
  longest(SITE_STEPS),
);

export interface SweepReport {
  results: Partial<Record<SweepStepName, unknown>>;
  /** Steps that threw (the run then fails, for the function-error alarm). */
  failed: SweepStepName[];
  /** Steps that used their whole budget: what they did not start waits for the next run. */
  overBudget: SweepStepName[];
  /** Steps whose items in flight were still running when the run went on without them. */
  unfinished: SweepStepName[];
}

/**
 * Runs every step, each within its budget; a step that throws is reported in `failed` and the
 * others still run. `onError` is told each step's error (e.g. to log it).
 */
export async function runSweep(
  steps: Record<SweepStepName, SweepStep>,
  onError: (name: SweepStepName, error: unknown) => void = () => undefined,
): Promise<SweepReport> {
  const report: SweepReport = { results: {}, failed: [], overBudget: [], unfinished: [] };
  const runStep = async (name: SweepStepName) => {
    const { budgetMs, graceMs } = SWEEP_BUDGETS[name];
    const budget = new AbortController();
    const budgetTimer = setTimeout(
      () => budget.abort(new Error(`The ${name} step spent its budget.`)),
      budgetMs,
    );
    let graceTimer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'gave_up'>((resolve) => {
      graceTimer = setTimeout(() => resolve('gave_up'), budgetMs + graceMs);
    });
    const work = steps[name].run(budget.signal);
    try {
      const outcome = await Promise.race([work.then((result) => ({ result })), gaveUp]);
      if (outcome === 'gave_up') {
        report.unfinished.push(name);
        work.catch((error: unknown) => onError(name, error));
      } else {
        report.results[name] = outcome.result;
      }
    } catch (error) {
      report.failed.push(name);
      onError(name, error);
    } finally {
      clearTimeout(budgetTimer);
      clearTimeout(graceTimer);
      if (budget.signal.aborted) report.overBudget.push(name);
    }
  };
  const storeLane = async () => {
    for (const name of STORE_STEPS) await runStep(name);
  };
  await Promise.all([storeLane(), ...SITE_STEPS.map(runStep)]);
  return report;
}

export interface SweepDeps {
  articles: SweepArticlesDeps;
  publishing: PublishDeps;
  /** Scheduled posts read back after their time. */
  scheduledPosts: ConfirmScheduledDeps;
  webhooks: EventResendDeps;
  /** Outline reviews due for expiry (the store's outline port); none: the step does nothing. */
  outlines?: ExpireOutlinesDeps;
  /** Batches: interrupted writes finished, `batch.completed` recorded (none: the step does nothing). */
  batches?: SweepBatchesDeps;
  /** Told how many articles the run failed for good (e.g. for the metric). */
  onFinalFailures?: (count: number) => void;
}

/** The sweeper's steps on `deps`, each stopping at its signal. */
export function sweepSteps(deps: SweepDeps): Record<SweepStepName, SweepStep> {
  return {
    reservations: { run: (signal) => retryDeferredReservations(deps.articles, signal) },
    generations: {
      run: async (signal) => {
        const recovered = await recoverStalledGenerations(deps.articles, signal);
        deps.onFinalFailures?.(recovered.failed);
        return recovered;
      },
    },
    // Outlines not approved in time: cancelled and refunded (outline-review.ts).
    outlines: { run: async () => (deps.outlines ? expireOutlines(deps.outlines) : { expired: 0 }) },
    batches: {
      run: async (signal) =>
        deps.batches ? sweepBatches(deps.batches, signal) : { finished: 0, completed: 0, waiting: 0 },
    },
    webhooks: { run: (signal) => resendDueWebhooks(deps.webhooks, undefined, signal) },
    publications: { run: (signal) => retryDuePublications(deps.publishing, signal) },
    websites: { run: (signal) => checkWebsites(deps.publishing, signal) },
    scheduledPosts: { run: (signal) => confirmScheduledPosts(deps.scheduledPosts, signal) },
  };
}
