/**
 * Failed logins an account's own registrations and credential updates cause on a site. The
 * plugin pauses a user's logins after five failures in 15 minutes from one address, and every
 * Inkpress account calls sites from the same addresses: without a cap of its own, one account
 * (or a customer's own typos) could pause the login another account publishes with. Each account
 * may fail MAX_LOGIN_FAILURES times per site and login in a window; then it is told to wait.
 */
import { createHash } from 'node:crypto';
import { ValidationError } from '../errors';
import { waitOf } from './site-failures';

export const MAX_LOGIN_FAILURES = 2;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;

export interface LoginFailureStore {
  /** The failures counted for `key` in the window still open at `now`; undefined when none is. */
  current(key: string, now: Date): Promise<{ failures: number; windowEndsAt: Date } | undefined>;
  /** Counts one failure: in the open window, or in a new one of `windowMs` from `now`. */
  record(key: string, now: Date, windowMs: number): Promise<void>;
}

/** One account, one site (its host: the plugin counts per WordPress user, whatever the path), one login. */
export function loginFailureKey(accountId: string, siteUrl: string, login: string): string {
  const host = new URL(siteUrl).host;
  return createHash('sha256').update(`${accountId}\n${host}\n${login.trim().toLowerCase()}`).digest('hex');
}

/** Refuses (422 on `login`) a login check that could only add to the failures this account caused. */
export async function refuseAfterRepeatedFailures(
  store: LoginFailureStore,
  key: string,
  now: Date,
): Promise<void> {
  const current = await store.current(key, now);
  if (current === undefined || current.failures < MAX_LOGIN_FAILURES) return;
  const waitSeconds = (current.windowEndsAt.getTime() - now.getTime()) / 1000;
  throw ValidationError.forField(
    'login',
    `The site refused this login ${current.failures} times in the last ${LOGIN_FAILURE_WINDOW_MS / 60_000} minutes, so Inkpress does not try it again for now (more failures would make the site pause this login for every caller): check the login and password, then try again ${waitOf(waitSeconds)}.`,
  );
}
