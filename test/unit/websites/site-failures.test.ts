import { CmsError } from '../../../functions/core/websites/cms-client';
import { healthAfterFailure, registrationError } from '../../../functions/core/websites/site-failures';

describe('healthAfterFailure', () => {
  it('leaves the flags alone when the site paused logins (a retry later, not a verdict)', () => {
    const error = new CmsError('throttled', 'paused', 429, 'inkpress_throttled', 600);
    expect(healthAfterFailure(error)).toEqual({});
  });

  it('sets login_is_unauthorized for any refused login', () => {
    for (const [status, code] of [
      [401, 'inkpress_login_failed'],
      [403, 'inkpress_missing_role'],
    ] as const) {
      expect(healthAfterFailure(new CmsError('unauthorized', 'refused', status, code))).toEqual({
        loginIsUnauthorized: true,
        isUnreachable: false,
      });
    }
  });

  it('clears is_unreachable when the plugin itself answered with an error (it is reachable)', () => {
    const error = new CmsError(
      'plugin_error',
      'The plugin failed (inkpress_insert_failed)',
      500,
      'inkpress_insert_failed',
    );
    expect(healthAfterFailure(error)).toEqual({ isUnreachable: false });
  });

  it('sets is_unreachable when the site could not be reached', () => {
    expect(healthAfterFailure(new CmsError('unreachable', 'Could not reach x (ECONNREFUSED)'))).toEqual({
      isUnreachable: true,
    });
  });
});

describe('registrationError', () => {
  it('says the plugin answered with an error, on url', () => {
    const error = new CmsError('plugin_error', 'The plugin failed (inkpress_busy)', 503, 'inkpress_busy');
    expect(registrationError(error).fieldErrors).toEqual({
      url: [
        'The Inkpress Connector plugin on this site answered with an error (The plugin failed (inkpress_busy)); try again later.',
      ],
    });
  });

  it("does not call a 2xx the site answered without the plugin's shape a missing plugin", () => {
    const error = new CmsError('plugin_missing', "The site's answer on status is not the plugin's", 200);
    expect(registrationError(error).fieldErrors).toEqual({
      url: [
        "The site answered, but not like the Inkpress Connector plugin (The site's answer on status is not the plugin's).",
      ],
    });
  });

  it("names a closed REST API beside a missing plugin for a refusal without the plugin's code", () => {
    const error = new CmsError(
      'plugin_missing',
      'The site refused the request without the plugin (rest_forbidden)',
      403,
    );
    expect(registrationError(error).fieldErrors.url?.[0]).toMatch(
      /install and activate the plugin, or allow \/\?rest_route=\/inkpress\/v1\/ in the security plugin/,
    );
  });

  it('gives every refused login the same message on login and password, naming every cause', () => {
    const message =
      'login failed: check the user name, the password, and that the user has only the Inkpress Editor role';
    for (const error of [
      new CmsError('unauthorized', 'The site refused the login', 401, 'inkpress_login_failed'),
      new CmsError('unauthorized', 'The site refused the login', 403, 'inkpress_missing_role'),
    ]) {
      expect(registrationError(error).fieldErrors).toEqual({ login: [message], password: [message] });
    }
  });

  it.each([
    [900, 'try again in 15 minutes.'],
    [61, 'try again in 2 minutes.'],
    [30, 'try again in a minute.'],
    [undefined, 'try again later.'],
    [1e20, 'try again later.'],
  ])('says logins for the user are paused (Retry-After %s)', (retryAfter, end) => {
    const error = new CmsError('throttled', 'paused', 429, 'inkpress_throttled', retryAfter);
    expect(registrationError(error).fieldErrors).toEqual({
      login: [`The site has paused logins for this user for now, after repeated failed logins: ${end}`],
    });
  });
});
