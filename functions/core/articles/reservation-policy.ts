/** When reservations are retried, and when a queued article counts as stuck. */
import { runtimeSettings, visibilityTimeoutSeconds } from '../../shared/runtime-settings';
import { nextUtcMidnight, utcDay } from '../wire';
import type { Reservation } from './ports';

/** A queued article not generated after every delivery of its message had its full time is stuck. */
export const STUCK_AFTER_MS = (visibilityTimeoutSeconds * runtimeSettings.maxReceiveCount + 600) * 1000;
/**
 * Articles waiting for credits are woken by `credits add`; this is only a daily safety net (e.g.
 * after a refund). No polling, so one account's pile of waiting articles never slows the sweeper
 * down for the others.
 */
export const CREDIT_RETRY_MS = 24 * 60 * 60 * 1000;

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
