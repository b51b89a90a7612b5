/** What a failed call to a site means: for a client registering it, and for the website's flags. */
import { ValidationError } from '../errors';
import { believedRetryAfter, type CmsError } from './cms-client';
import type { WebsiteHealth } from './ports';

/**
 * Every refused login gets this one message, naming each cause the site does not tell apart:
 * saying which it was would tell an attacker that an administrator's password is right.
 */
export const LOGIN_FAILED_MESSAGE =
  'login failed: check the user name, the password, and that the user has only the Inkpress Editor role';

/** The 422 a registration gets when the site cannot be verified, naming what failed. */
export function registrationError(error: CmsError): ValidationError {
  switch (error.reason) {
    case 'blocked':
      return ValidationError.forField(
        'url',
        'The url points to a private, loopback, link-local or reserved network address, which is not allowed.',
      );
    case 'unauthorized':
      return new ValidationError({ login: [LOGIN_FAILED_MESSAGE], password: [LOGIN_FAILED_MESSAGE] });
    case 'throttled':
      return ValidationError.forField('login', throttledMessage(error.retryAfterSeconds));
    case 'plugin_missing':
      // A 2xx or a refusal that is not the plugin's is no proof that the plugin is missing.
      if (error.httpStatus !== undefined && error.httpStatus < 300) {
        return ValidationError.forField(
          'url',
          `The site answered, but not like the Inkpress Connector plugin (${error.message}).`,
        );
      }
      if (error.httpStatus === 401 || error.httpStatus === 403) {
        return ValidationError.forField(
          'url',
          `The site refused the request without an answer of the Inkpress Connector plugin (${error.message}): install and activate the plugin, or allow /?rest_route=/inkpress/v1/ in the security plugin or setting that closes WordPress's REST API.`,
        );
      }
      return ValidationError.forField(
        'url',
        'The Inkpress Connector plugin was not found on this site: install and activate it, then try again.',
      );
    case 'plugin_error':
      return ValidationError.forField(
        'url',
        `The Inkpress Connector plugin on this site answered with an error (${error.message}); try again later.`,
      );
    case 'invalid_request':
    case 'unreachable':
      return ValidationError.forField(
        'url',
        error.httpStatus !== undefined && error.httpStatus < 500
          ? `The site answered, but not like a WordPress site with the Inkpress Connector plugin (${error.message}).`
          : `The site could not be reached (${error.message}).`,
      );
  }
}

function throttledMessage(retryAfterSeconds: number | undefined): string {
  return `The site has paused logins for this user for now, after repeated failed logins: try again ${waitOf(believedRetryAfter(retryAfterSeconds))}.`;
}

/** "in a minute", "in 12 minutes" (rounded up), or "later" when the wait is unknown. */
export function waitOf(seconds: number | undefined): string {
  if (seconds === undefined) return 'later';
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return minutes === 1 ? 'in a minute' : `in ${minutes} minutes`;
}

/**
 * The website flags after a failed call: a refused login sets `login_is_unauthorized` (and
 * shows the site answered); anything that kept us from the plugin sets `is_unreachable`.
 * An error the plugin itself answered with shows the site is reachable (clears
 * `is_unreachable`); a request the plugin rejected, or a pause of logins (retried later,
 * not a verdict on the password), says nothing about the site's health.
 */
export function healthAfterFailure(error: CmsError): WebsiteHealth {
  switch (error.reason) {
    case 'unauthorized':
      return { loginIsUnauthorized: true, isUnreachable: false };
    case 'unreachable':
    case 'blocked':
    case 'plugin_missing':
      return { isUnreachable: true };
    case 'plugin_error':
      return { isUnreachable: false };
    case 'invalid_request':
    case 'throttled':
      return {};
  }
}

/** The website flags after a call that worked. */
export const HEALTHY: WebsiteHealth = { loginIsUnauthorized: false, isUnreachable: false };
