/**
 * The article lifecycle's timing rules, defined once for the deployed stack and `npm start`:
 * generation leases, retry backoff, when the sweeper steps in, and publication retries.
 *
 * Work is leased, not timed from the queue: an article waiting in a long queue is never
 * "stuck". Only an article whose lease expired (its worker died), or whose message was never
 * sent, is re-sent — and only an article that used up its attempts is failed.
 */

/** Generation attempts (each one a worker holding the lease) before `error` and a refund. */
export const MAX_GENERATION_ATTEMPTS = 4;
/** A worker's hold on an article; renewed every third of it while the worker runs. */
export const LEASE_MS = 60_000;
export const LEASE_RENEW_MS = LEASE_MS / 3;
/** Delay before the first retry of a failed attempt (then doubling). */
export const FIRST_RETRY_SECONDS = 30;

/**
 * The lease and the first retry delay an attempt works with. Deployed, always these constants;
 * the worker's configuration may shorten them (`INKPRESS_GENERATION_LEASE_SECONDS`,
 * `INKPRESS_GENERATION_RETRY_SECONDS`, functions/shared/config.ts) so that tests of crashes
 * and storage outages see a lease run out in seconds rather than a minute.
 */
export interface GenerationTimings {
  leaseMs: number;
  firstRetrySeconds: number;
}
export const GENERATION_TIMINGS: GenerationTimings = {
  leaseMs: LEASE_MS,
  firstRetrySeconds: FIRST_RETRY_SECONDS,
};
/** Longest one generation attempt may take before it counts as failed. */
export const ATTEMPT_BUDGET_MS = 240_000;
/**
 * Delay before a failed attempt's retry: 30 s, doubling (30, 60, 120 s for 4 attempts). The
 * same backoff, by receive count, brings back a delivery that failed on storage before it
 * could count an attempt.
 */
export function generationRetryDelaySeconds(
  failedAttempts: number,
  timings: GenerationTimings = GENERATION_TIMINGS,
): number {
  return timings.firstRetrySeconds * 2 ** Math.max(0, failedAttempts - 1);
}
/**
 * Delay before a delivery whose attempt failed on storage (the worker caught a throw) comes
 * back: the backoff by receive count, but never before a lease the attempt may still hold has
 * run out. With storage down an attempt cannot give its lease back, nor know whether its take
 * or a renewal was stored; a delivery back while that lease runs finds it held, counts as a
 * duplicate and is deleted, and the article then waits for the sweeper. Every lease end an
 * attempt writes is at most the lease (`LEASE_MS` deployed) after the moment it was sent, so a
 * lease from the failure (plus a slack for clocks) is past it.
 */
export function storageFailureRetryDelaySeconds(
  receiveCount: number,
  timings: GenerationTimings = GENERATION_TIMINGS,
): number {
  return Math.max(
    generationRetryDelaySeconds(receiveCount, timings),
    timings.leaseMs / 1000 + LEASE_CLOCK_SLACK_SECONDS,
  );
}
const LEASE_CLOCK_SLACK_SECONDS = 5;
/** Time given to the retry's delivery to take the lease before the sweeper re-sends it. */
export const RETRY_DELIVERY_GRACE_MS = 120_000;
/** Time given to a new article's message to be sent before the sweeper sends it. */
export const SEND_GRACE_MS = 60_000;
/**
 * How long the generation queue keeps a message (SQS maximum, 14 days). An article still
 * waiting after that (plus an hour) lost its message to expiry and is sent again.
 */
export const QUEUE_RETENTION_SECONDS = 14 * 24 * 3600;
export const WAITING_RECHECK_MS = QUEUE_RETENTION_SECONDS * 1000 + 3600_000;

/**
 * Worst case from creation to a final state for an article whose model keeps failing:
 * every attempt uses its whole budget, the retries wait their backoff, and the last lease
 * (if its worker died) expires and is noticed by the next sweep.
 */
export const WORST_CASE_FAILURE_MS =
  MAX_GENERATION_ATTEMPTS * ATTEMPT_BUDGET_MS +
  Array.from(
    { length: MAX_GENERATION_ATTEMPTS - 1 },
    (_, index) => generationRetryDelaySeconds(index + 1) * 1000,
  ).reduce((sum, delay) => sum + delay, 0) +
  LEASE_MS +
  60_000;

/** Publication attempts before the publication is `failed` (a permanent rejection fails at once). */
export const MAX_PUBLISH_ATTEMPTS = 8;
const FIRST_PUBLISH_RETRY_MS = 60_000;
const MAX_PUBLISH_RETRY_MS = 30 * 60_000;
/** Delay before publication attempt `attempts + 1`: 1, 2, 4, ... minutes, at most 30. */
export function publishRetryDelayMs(attempts: number): number {
  return Math.min(MAX_PUBLISH_RETRY_MS, FIRST_PUBLISH_RETRY_MS * 2 ** Math.max(0, attempts - 1));
}
/**
 * A retry set during one sweep falls due a little after the start of the sweep one interval
 * later (by how far into its sweep the attempt failed): due within this much, the sweep attempts
 * it now rather than a whole interval late.
 */
export const DUE_SLACK_MS = 15_000;
/**
 * Time the worker has to publish right after generation (a site call takes at most 10 s, 20 s
 * with the category fallback) before the sweeper takes over; the sweep takes what is due within
 * its 15 s slack (`DUE_SLACK_MS`), so at the least 45 s, still twice a site call at worst.
 */
export const PUBLISH_GRACE_MS = 60_000;
