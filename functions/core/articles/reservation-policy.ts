/** When reservations are retried, and when the sweeper sends a message the create did not send. */
import { nextUtcMidnight, utcDay } from '../wire';
import { SEND_GRACE_MS } from './lifecycle-policy';
import type { Reservation } from './ports';
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
    sendBy: new Date(now.getTime() + SEND_GRACE_MS).toISOString(),
    retryCreditsAt: new Date(now.getTime() + CREDIT_RETRY_MS).toISOString(),
    retryDailyLimitAt: nextUtcMidnight(now).toISOString(),
  };
}
