/** When reservations are retried, and when a queued article counts as stuck. */
import { runtimeSettings, visibilityTimeoutSeconds } from '../../shared/runtime-settings';
import { nextUtcMidnight, utcDay } from '../wire';
import type { Reservation } from './ports';

/** A queued article not generated after every delivery of its message had its full time is stuck. */
export const STUCK_AFTER_MS = (visibilityTimeoutSeconds * runtimeSettings.maxReceiveCount + 600) * 1000;
/** How soon an article deferred for lack of credits is tried again (sooner after `credits add`). */
export const CREDIT_RETRY_MS = 15 * 60 * 1000;

export function reservationAt(now: Date, price: number, dailyLimit: number): Reservation {
  return {
    price,
    day: utcDay(now),
    dailyLimit,
    now: now.toISOString(),
    stuckAfter: new Date(now.getTime() + STUCK_AFTER_MS).toISOString(),
    retryCreditsAt: new Date(now.getTime() + CREDIT_RETRY_MS).toISOString(),
    retryDailyLimitAt: nextUtcMidnight(now).toISOString(),
  };
}
