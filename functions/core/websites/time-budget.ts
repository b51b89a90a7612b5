/**
 * One deadline for a request's calls to a site (API Gateway ends a request at 29 s): each call
 * gets what is left of it, at most its own limit.
 */

export interface TimeBudget {
  /** The time the next call may take: at most `most`, at least 1 ms. */
  next(most: number): number;
  /** What is left, in ms (0 once spent). */
  left(): number;
}

export function timeBudget(now: (() => Date) | undefined, totalMs: number): TimeBudget {
  const time = () => (now?.() ?? new Date()).getTime();
  const deadline = time() + totalMs;
  const left = () => Math.max(0, deadline - time());
  return { left, next: (most) => Math.max(1, Math.min(most, left())) };
}
