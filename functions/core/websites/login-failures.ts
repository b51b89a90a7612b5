/**
 * Failed logins Inkpress's registrations and credential updates cause on a site. The plugin
 * pauses a user's logins after five failures in 15 minutes from one address
 * (Inkpress_Throttle), and every Inkpress account calls sites from the same addresses: one
 * account (or its typos, or 20 parallel requests) must not pause the login another account
 * publishes with. So every login check is an attempt reserved BEFORE the call, atomically, under
 * two counters of a sliding 15-minute window:
 * - this account, this host, this login (as the plugin names it): MAX_ACCOUNT_LOGIN_FAILURES;
 * - this host and login, whichever account: MAX_SITE_LOGIN_FAILURES, fewer than the plugin's
 *   five, so Inkpress alone never trips its throttle.
 * A reserved attempt counts as failed until the site accepted the login (or certainly never
 * checked it); then it is released.
 */
import { createHash, randomUUID } from 'node:crypto';
import { ValidationError } from '../errors';
import { CmsError, CmsNoAnswerError } from './cms-client';
import { waitOf } from './site-failures';
import { throttledLoginNames } from './wordpress-login';

export const MAX_ACCOUNT_LOGIN_FAILURES = 2;
export const MAX_SITE_LOGIN_FAILURES = 3;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;

/** One counter an attempt is reserved under, and how many attempts its window holds. */
export interface LoginAttemptCounter {
  key: string;
  limit: number;
}

export type LoginAttemptReservation =
  | { granted: true }
  /** `counter` is full: `attempts` in its window, the oldest of which leaves it at `freeAt`. */
  | { granted: false; counter: LoginAttemptCounter; attempts: number; freeAt: Date };

export interface LoginAttemptStore {
  /**
   * Counts attempt `attemptId` at `now` under every counter, all or none: none when one of them
   * already holds `limit` attempts younger than `windowMs`.
   */
  reserve(
    counters: LoginAttemptCounter[],
    attemptId: string,
    now: Date,
    windowMs: number,
  ): Promise<LoginAttemptReservation>;
  /** Takes the attempt back from every counter (the site accepted the login, or never saw it). */
  release(keys: string[], attemptId: string): Promise<void>;
}

const hash = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The counters of a login check: per account and per site, for each name the plugin could count
 * the login under (wordpress-login.ts; one for nearly every login). The plugin counts per
 * WordPress user, whatever the path: the site is its host.
 */
export function loginAttemptCounters(
  accountId: string,
  siteUrl: string,
  login: string,
): LoginAttemptCounter[] {
  const host = new URL(siteUrl).host.toLowerCase();
  return throttledLoginNames(login).flatMap((name) => [
    { key: `account#${hash(`${accountId}\n${host}\n${name}`)}`, limit: MAX_ACCOUNT_LOGIN_FAILURES },
    { key: `site#${hash(`${host}\n${name}`)}`, limit: MAX_SITE_LOGIN_FAILURES },
  ]);
}

/**
 * Whether a failed check may have cost a failed login at the site: a refused login (the plugin
 * answers every failed login 401), or a request sent whose answer never came (a timeout, a
 * connection cut off). Any answer besides (a pause, which checks nothing; a page without the
 * plugin; a redirect; an error after the login worked) and a call never sent did not.
 */
function mayHaveFailedLogin(error: unknown): boolean {
  if (!(error instanceof CmsError)) return true;
  return error.reason === 'unauthorized' || error instanceof CmsNoAnswerError;
}

/**
 * Runs `check` (a login to the site with credentials a client sent) as one reserved attempt;
 * refuses it with a 422 on `login`, without calling the site, when a counter is full.
 * `notCounted` may tell that a failure certainly cost no failed login at the site (a login that
 * could not reach the plugin), which then releases the attempt too.
 */
export async function withLoginAttempt<T>(
  store: LoginAttemptStore,
  attempt: { accountId: string; siteUrl: string; login: string; now: Date },
  check: () => Promise<T>,
  notCounted: (error: unknown) => Promise<boolean> = async () => false,
): Promise<T> {
  const counters = loginAttemptCounters(attempt.accountId, attempt.siteUrl, attempt.login);
  const attemptId = randomUUID();
  const reservation = await store.reserve(counters, attemptId, attempt.now, LOGIN_FAILURE_WINDOW_MS);
  if (!reservation.granted) throw refusal(reservation, attempt.now);
  const release = () =>
    store.release(
      counters.map((counter) => counter.key),
      attemptId,
    );
  let result: T;
  try {
    result = await check();
  } catch (error) {
    if (!mayHaveFailedLogin(error) || (await notCounted(error).catch(() => false))) await release();
    throw error;
  }
  await release();
  return result;
}

function refusal(
  reservation: Extract<LoginAttemptReservation, { granted: false }>,
  now: Date,
): ValidationError {
  const wait = waitOf((reservation.freeAt.getTime() - now.getTime()) / 1000);
  const minutes = LOGIN_FAILURE_WINDOW_MS / 60_000;
  const bySite = reservation.counter.key.startsWith('site#');
  return ValidationError.forField(
    'login',
    bySite
      ? `Logins to this site as this user failed (or are being checked) ${reservation.attempts} times in the last ${minutes} minutes through Inkpress, so Inkpress does not try it again for now (more failures would make the site pause this login for every caller): check the login and password, then try again ${wait}.`
      : `The site refused this login (or is checking it) ${reservation.attempts} times in the last ${minutes} minutes, so Inkpress does not try it again for now (more failures would make the site pause this login for every caller): check the login and password, then try again ${wait}.`,
  );
}
