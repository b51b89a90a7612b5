/**
 * The per-account request rate: a token bucket of `burst` requests refilled at `ratePerSecond`,
 * kept as GCRA's "theoretical arrival time" (`tat`, ms): the moment the bucket is full again.
 * A request at `now` is allowed when `max(tat, now) + interval - now <= burst * interval` plus
 * the clock slack below, and moves `tat` to `max(tat, now) + interval`. A store that fails lets
 * the request through.
 *
 * Requests read their clocks before they reach the bucket, so one that read it earlier can
 * arrive after one that read it later (other Lambdas, or the same process's concurrent
 * requests). Each request therefore allows a little slack (`clockSlackMs`: half a token
 * interval, at most a second): a clock that far behind the bucket's still gets its token, and a
 * burst of simultaneous requests is still let through exactly `burst` times (the slack is under
 * one token). The price: after a drained bucket, the next token comes that much earlier. A
 * request that reaches the bucket later than that behind another is still refused the last token.
 */
import { TooManyRequestsError } from './errors';

export interface RateLimitPolicy {
  /** Sustained requests per second; 0 turns the limit off. */
  ratePerSecond: number;
  /** Requests allowed at once after a quiet period (the bucket size). */
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitPolicy = { ratePerSecond: 10, burst: 20 };

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimitStore {
  /** Takes one token from the bucket of `key` at `nowMs`, atomically. */
  take(key: string, nowMs: number, policy: RateLimitPolicy): Promise<RateDecision>;
}

/** Milliseconds between two tokens. */
export function tokenIntervalMs(policy: RateLimitPolicy): number {
  return 1000 / policy.ratePerSecond;
}

const MAX_CLOCK_SLACK_MS = 1000;

/** How far a request's clock may be behind the clock that set its bucket's `tat`. */
export function clockSlackMs(policy: RateLimitPolicy): number {
  return Math.min(tokenIntervalMs(policy) / 2, MAX_CLOCK_SLACK_MS);
}

/** The latest `tat` at which one more request is still allowed. */
export function latestAllowedTat(policy: RateLimitPolicy, nowMs: number): number {
  return nowMs + (policy.burst - 1) * tokenIntervalMs(policy) + clockSlackMs(policy);
}

/** Whole seconds until a bucket at `tat` has a token again (at least 1). */
export function retryAfterSeconds(policy: RateLimitPolicy, tat: number, nowMs: number): number {
  return Math.max(1, Math.ceil((tat - latestAllowedTat(policy, nowMs)) / 1000));
}

export interface RateLimitDeps {
  store: RateLimitStore;
  policy: RateLimitPolicy;
  clock?: () => number;
  /** Told when the store fails; the request is then allowed (the API stays up). */
  onStoreFailure: (error: unknown) => void;
}

/** Throws TooManyRequestsError when the account is over its rate. */
export async function enforceRateLimit(deps: RateLimitDeps, accountId: string): Promise<void> {
  if (deps.policy.ratePerSecond <= 0) return;
  let decision: RateDecision;
  try {
    decision = await deps.store.take(accountId, (deps.clock ?? Date.now)(), deps.policy);
  } catch (error) {
    deps.onStoreFailure(error);
    return;
  }
  if (!decision.allowed) throw new TooManyRequestsError(decision.retryAfterSeconds);
}
