/**
 * The connection doctor against the fakes: each problem code from what the probes and the
 * plugin's login answered, the order it looks in (nothing worth a login is logged in to), the
 * failed-login cap it shares with a create, and that it is no password oracle.
 */
import { SiteProblemsError, ValidationError } from '../../../functions/core/errors';
import { checkConnection } from '../../../functions/core/websites/check-connection';
import { CmsError, CmsNoAnswerError } from '../../../functions/core/websites/cms-client';
import { createWebsite } from '../../../functions/core/websites/create-website';
import {
  CHECK_BUDGET_MS,
  isApplicationPassword,
  type Problem,
  registerInstead,
} from '../../../functions/core/websites/diagnose-connection';
import type { SiteObstacle } from '../../../functions/core/websites/ports';
import { updateWebsite } from '../../../functions/core/websites/update-website';
import { createFakes, type Fakes } from '../../support/fakes';

const APP_PASSWORD = 'abcd EFGH ijkl MNOP qrst UVWX';
const fields = { url: 'https://blog.example.com/', login: 'inkpress', password: 'correct horse' };

const doctorDeps = (fakes: Fakes) => ({
  allowPlainHttp: true,
  cms: fakes.cms,
  probes: fakes.probes,
  loginFailures: fakes.loginFailures,
  now: fakes.clock,
});

async function check(fakes: Fakes, overrides: Record<string, unknown> = {}) {
  const accountId = await fakes.account(0);
  return (await checkConnection(doctorDeps(fakes), accountId, { ...fields, ...overrides })).data;
}

const codes = (problems: Problem[]) => problems.map((problem) => problem.code);
const loginCalls = (fakes: Fakes) => fakes.cms.calls.filter((call) => call.kind === 'status').length;

describe('connection doctor', () => {
  it('finds nothing wrong with a site that connects, and says it connected', async () => {
    const fakes = createFakes();
    const report = await check(fakes);
    expect(report).toEqual({
      url: 'https://blog.example.com',
      connected: 1,
      plugin_version: '1.5.0',
      problems: [],
    });
    expect(fakes.probes.calls.map((call) => call.kind)).toEqual(['probePlugin']);
  });

  it.each<[string, SiteObstacle, string, RegExp]>([
    [
      'dns_unresolved',
      { kind: 'unresolved', detail: 'Could not resolve blog.example.com (ENOTFOUND)' },
      'blog.example.com',
      /DNS record/,
    ],
    [
      'tls_invalid',
      { kind: 'tls', detail: 'HTTPS to blog.example.com failed (DEPTH_ZERO_SELF_SIGNED_CERT)' },
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      /valid certificate for blog\.example\.com/,
    ],
    [
      'timeout',
      { kind: 'timeout', detail: 'No complete answer from blog.example.com in time' },
      'in time',
      /firewall/,
    ],
    [
      'unreachable',
      { kind: 'unreachable', detail: 'Could not reach blog.example.com (ECONNREFUSED)' },
      'ECONNREFUSED',
      /web server is running/,
    ],
    [
      'site_error',
      { kind: 'too_large', limitBytes: 1024 * 1024, route: 'inkpress/v1/probe' },
      'larger than 1 MB',
      /Open https:\/\/blog\.example\.com\/\?rest_route=\/inkpress\/v1\/probe in a browser/,
    ],
    [
      'challenge_page',
      { kind: 'challenge', status: 403, vendor: 'Cloudflare' },
      'Cloudflare answered with an HTML challenge page (HTTP 403)',
      /Cloudflare's settings/,
    ],
    [
      'rest_api_blocked',
      { kind: 'rest_blocked', status: 401, detail: 'the REST API answered HTTP 401 (rest_cannot_access)' },
      'rest_cannot_access',
      /Allow the REST API/,
    ],
    [
      'server_error',
      { kind: 'server_error', status: 500, detail: 'HTTP 500 with text/html' },
      'HTTP 500',
      /error log/,
    ],
    [
      'not_wordpress',
      { kind: 'not_wordpress', status: 200, detail: 'HTTP 200 with text/html for a REST API address' },
      'HTTP 200',
      /WordPress site itself/,
    ],
    [
      'plugin_missing',
      { kind: 'plugin_missing', detail: 'no inkpress/v1 routes: rest_no_route' },
      'rest_no_route',
      /Install and activate the Inkpress Connector plugin/,
    ],
  ])(
    '%s: what keeps Inkpress from the plugin is told, and no login is tried',
    async (code, obstacle, said, fix) => {
      const fakes = createFakes();
      fakes.probes.plugin = { kind: 'obstacle', obstacle };
      const report = await check(fakes);
      expect(report.connected).toBe(0);
      expect(report.problems).toHaveLength(1);
      expect(report.problems[0]).toMatchObject({
        code,
        message: expect.stringContaining(said),
        fix: expect.stringMatching(fix),
      });
      expect(loginCalls(fakes)).toBe(0);
    },
  );

  it.each([
    [
      'http://blog.example.com/?rest_route=/inkpress/v1/probe',
      'https://blog.example.com/?rest_route=/inkpress/v1/probe',
      'https://blog.example.com',
    ],
    [
      'https://blog.example.com/?rest_route=/inkpress/v1/probe',
      'https://www.blog.example.com/?rest_route=/inkpress/v1/probe',
      'https://www.blog.example.com',
    ],
    [
      'https://example.com/blog/?rest_route=/inkpress/v1/probe',
      'https://blog.example.org/index.php?rest_route=/inkpress/v1/probe',
      'https://blog.example.org',
    ],
  ])('redirected: names the address to register instead (%s -> %s)', async (_from, location, instead) => {
    const fakes = createFakes();
    fakes.probes.plugin = { kind: 'obstacle', obstacle: { kind: 'redirected', status: 301, location } };
    const url = new URL(_from);
    const report = await check(fakes, { url: `${url.protocol}//${url.host}${url.pathname}` });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'redirected',
        fix: `Register ${instead} instead, the address the site answers at.`,
      }),
    ]);
    expect(loginCalls(fakes)).toBe(0);
  });

  it.each([
    ['file:///etc/passwd', 'file:'],
    ['gopher://127.0.0.1:70/_INFO', 'gopher:'],
  ])('redirected to %s: names the scheme, not "null"', async (location, scheme) => {
    const fakes = createFakes();
    fakes.probes.plugin = { kind: 'obstacle', obstacle: { kind: 'redirected', status: 302, location } };
    const report = await check(fakes);
    expect(report.problems).toEqual([
      {
        code: 'redirected',
        message: `https://blog.example.com redirects (HTTP 302) to a ${scheme} address, which is no web address: Inkpress calls only http and https addresses.`,
        fix: 'Make the site answer at https://blog.example.com without a redirect, or register the address it answers at.',
      },
    ]);
  });

  it.each<[string, string, string | undefined]>([
    [
      'to cloud metadata',
      'http://169.254.169.254/latest/meta-data/?rest_route=/inkpress/v1/probe',
      '169.254.169.254 is a private, loopback, link-local or reserved address',
    ],
    [
      'to a private address',
      'https://10.0.0.1/?rest_route=/inkpress/v1/probe',
      '10.0.0.1 is a private, loopback, link-local or reserved address',
    ],
    ['from https down to http', 'http://blog.example.com/?rest_route=/inkpress/v1/probe', undefined],
  ])('redirected %s: never suggests an address the URL policy refuses', async (_case, location, refused) => {
    const fakes = createFakes();
    fakes.probes.plugin = {
      kind: 'obstacle',
      obstacle: { kind: 'redirected', status: 302, location, ...(refused ? { refused } : {}) },
    };
    const accountId = await fakes.account(0);
    const report = (await checkConnection({ ...doctorDeps(fakes), allowPlainHttp: false }, accountId, fields))
      .data;
    expect(report.problems).toEqual([
      {
        code: 'redirected',
        message: expect.stringMatching(
          /an address Inkpress will not call: (.* private, loopback|it is plain http)/,
        ),
        fix: 'Make the site answer at https://blog.example.com without a redirect: the address it redirects to cannot be registered.',
      },
    ]);
  });

  it('a create whose site redirects to a refused address lists the redirect, not only a bad url', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    fakes.cms.failWith(
      new CmsError(
        'unreachable',
        'The site redirects to an address Inkpress does not call (blog.example.com redirected to 169.254.169.254: 169.254.169.254 is a private, loopback, link-local or reserved address)',
      ),
    );
    fakes.probes.plugin = {
      kind: 'obstacle',
      obstacle: {
        kind: 'redirected',
        status: 302,
        location: 'http://169.254.169.254/?rest_route=/inkpress/v1/probe',
        refused: '169.254.169.254 is a private, loopback, link-local or reserved address',
      },
    };
    const { probes, cms, loginFailures, websites, categories, cipher } = fakes;
    await expect(
      createWebsite(
        { probes, cms, loginFailures, websites, categories, cipher, now: fakes.clock },
        accountId,
        fields,
      ),
    ).rejects.toMatchObject({
      fieldErrors: { url: [expect.stringContaining('redirects to an address Inkpress does not call')] },
      problems: [
        expect.objectContaining({ code: 'redirected', message: expect.stringContaining('will not call') }),
      ],
    });
  });

  it('a redirect that drops the query keeps the registered path on the new origin', () => {
    expect(registerInstead('http://example.com/blog', 'https://example.com/')).toBe(
      'https://example.com/blog',
    );
  });

  it('a blocked address is the 422 on url a create gives', async () => {
    const fakes = createFakes();
    fakes.probes.plugin = { kind: 'obstacle', obstacle: { kind: 'blocked', detail: 'private' } };
    await expect(check(fakes)).rejects.toMatchObject({
      fieldErrors: { url: [expect.stringMatching(/private/)] },
    });
  });

  it('refuses bad input with a 422 before calling the site', async () => {
    const fakes = createFakes();
    await expect(check(fakes, { password: '' })).rejects.toBeInstanceOf(ValidationError);
    const accountId = await fakes.account(0);
    await expect(
      checkConnection({ ...doctorDeps(fakes), allowPlainHttp: false }, accountId, {
        ...fields,
        url: 'http://blog.example.com',
      }),
    ).rejects.toMatchObject({ fieldErrors: { url: [expect.stringMatching(/https/)] } });
    expect(fakes.probes.calls).toEqual([]);
  });

  it('plugin_outdated names its version and the one needed, and the login is still checked', async () => {
    const fakes = createFakes();
    fakes.probes.plugin = {
      kind: 'plugin',
      version: '1.4.2',
      headers: { authorization: true, custom: true },
    };
    const report = await check(fakes);
    expect(report.connected).toBe(1);
    expect(report.problems).toEqual([
      {
        code: 'plugin_outdated',
        message: expect.stringContaining('version 1.4.2; version 1.5.0 or later is needed'),
        fix: expect.stringContaining('Update the Inkpress Connector plugin to version 1.5.0'),
      },
    ]);
  });

  it('plugin_outdated from a plugin without the probe route: the working login tells its version', async () => {
    const fakes = createFakes();
    fakes.probes.plugin = { kind: 'plugin_without_probe' };
    const report = await check(fakes);
    expect(report).toMatchObject({ connected: 1, plugin_version: '1.2.0' });
    expect(report.problems).toEqual([
      expect.objectContaining({ code: 'plugin_outdated', message: expect.stringContaining('version 1.2.0') }),
    ]);
  });

  it('plugin_outdated without the probe route and a refused login: older than the version needed', async () => {
    const fakes = createFakes();
    fakes.probes.plugin = { kind: 'plugin_without_probe' };
    fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
    const report = await check(fakes);
    expect(report).toMatchObject({ connected: 0, plugin_version: null });
    expect(codes(report.problems)).toEqual(['plugin_outdated', 'login_refused']);
    expect(report.problems[0]?.message).toContain('older than 1.5.0');
  });

  it('auth_header_stripped: says the fallback header works, and logs in with it', async () => {
    const fakes = createFakes();
    fakes.probes.plugin = {
      kind: 'plugin',
      version: '1.5.0',
      headers: { authorization: false, custom: true },
    };
    const report = await check(fakes);
    expect(report.connected).toBe(1);
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'auth_header_stripped',
        message: expect.stringContaining('X-Inkpress-Authorization, arrives'),
        fix: expect.stringContaining('CGIPassAuth On'),
      }),
    ]);
    expect(loginCalls(fakes)).toBe(1);
  });

  it('auth_header_stripped with no fallback: no login is sent (it could not arrive) and none is counted', async () => {
    const fakes = createFakes();
    fakes.probes.plugin = {
      kind: 'plugin',
      version: '1.5.0',
      headers: { authorization: false, custom: false },
    };
    const report = await check(fakes);
    expect(report.connected).toBe(0);
    expect(codes(report.problems)).toEqual(['auth_header_stripped']);
    expect(report.problems[0]?.message).toContain('does not arrive either');
    expect(loginCalls(fakes)).toBe(0);
  });

  it('login_refused with a real password names the three causes and the settings page, and asks WordPress nothing more', async () => {
    const fakes = createFakes();
    fakes.cms.failWith(
      new CmsError('unauthorized', 'The site refused the login', 401, 'inkpress_login_failed'),
    );
    const report = await check(fakes);
    expect(report.connected).toBe(0);
    expect(report.problems).toEqual([
      {
        code: 'login_refused',
        message: expect.any(String),
        fix: expect.stringMatching(
          /user name and password.*Inkpress Editor role and no more power.*Settings > Inkpress Connector/,
        ),
      },
    ]);
    expect(fakes.probes.calls.map((call) => call.kind)).toEqual(['probePlugin']);
  });

  it('is no password oracle: with a real password, core is never asked, whatever it would say', async () => {
    const fakes = createFakes();
    fakes.probes.user = {
      kind: 'user',
      login: 'admin',
      roles: ['administrator'],
      capabilities: ['manage_options'],
    };
    fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
    const report = await check(fakes, { password: 'an administrator password' });
    expect(codes(report.problems)).toEqual(['login_refused']);
    expect(fakes.probes.calls.some((call) => call.kind === 'coreUser')).toBe(false);
  });

  it('role_too_powerful: an application password whose user WordPress says is an administrator', async () => {
    const fakes = createFakes();
    fakes.probes.user = {
      kind: 'user',
      login: 'admin',
      roles: ['administrator'],
      capabilities: ['read', 'manage_options', 'unfiltered_html', 'edit_posts'],
    };
    fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
    const report = await check(fakes, { login: 'admin', password: APP_PASSWORD });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'role_too_powerful',
        message: expect.stringContaining(
          'admin, who has more power than the Inkpress Editor role (roles: administrator; manage_options, unfiltered_html)',
        ),
        fix: expect.stringContaining('only the Inkpress Editor role'),
      }),
    ]);
    expect(fakes.probes.calls.at(-1)).toMatchObject({ kind: 'coreUser', password: APP_PASSWORD });
  });

  it('role_missing: an application password whose user has not got the role', async () => {
    const fakes = createFakes();
    fakes.probes.user = {
      kind: 'user',
      login: 'writer',
      roles: ['author'],
      capabilities: ['read', 'edit_posts'],
    };
    fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
    const report = await check(fakes, { login: 'writer', password: APP_PASSWORD });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'role_missing',
        message: expect.stringContaining('(roles: author)'),
        fix: 'Give writer the Inkpress Editor role in Users on the site (and no other role), then check again.',
      }),
    ]);
  });

  it('an application password WordPress refuses too, or that cannot reach it, stays login_refused', async () => {
    const fakes = createFakes();
    fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
    expect(codes((await check(fakes, { password: APP_PASSWORD })).problems)).toEqual(['login_refused']);

    const stripped = createFakes();
    stripped.probes.plugin = {
      kind: 'plugin',
      version: '1.5.0',
      headers: { authorization: false, custom: true },
    };
    stripped.probes.user = {
      kind: 'user',
      login: 'x',
      roles: ['administrator'],
      capabilities: ['manage_options'],
    };
    stripped.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
    const report = await check(stripped, { password: APP_PASSWORD });
    expect(codes(report.problems)).toEqual(['auth_header_stripped', 'login_refused']);
    expect(stripped.probes.calls.some((call) => call.kind === 'coreUser')).toBe(false);
  });

  it('login_paused says when the pause ends', async () => {
    const fakes = createFakes('2026-03-01T10:00:00.000Z');
    fakes.cms.failWith(new CmsError('throttled', 'paused', 429, 'inkpress_throttled', 600));
    const report = await check(fakes);
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'login_paused',
        message: expect.stringContaining('until 2026-03-01T10:10:00Z'),
        fix: expect.stringContaining('Wait until 2026-03-01T10:10:00Z'),
      }),
    ]);
  });

  it.each([1e20, Number.POSITIVE_INFINITY])(
    'login_paused with an unbelievable Retry-After (%s s) says the site did not say until when',
    async (retryAfter) => {
      const fakes = createFakes('2026-03-01T10:00:00.000Z');
      fakes.cms.failWith(new CmsError('throttled', 'paused', 429, 'inkpress_login_throttled', retryAfter));
      const report = await check(fakes);
      expect(report.problems).toEqual([
        expect.objectContaining({
          code: 'login_paused',
          message: expect.stringContaining('it did not say until when'),
          fix: expect.stringContaining('Wait 15 minutes'),
        }),
      ]);
    },
  );

  it("counts refused logins toward the account's cap like a create, then refuses to try again", async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    const refuse = () =>
      fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
    refuse();
    await checkConnection(doctorDeps(fakes), accountId, fields);
    refuse();
    await checkConnection(doctorDeps(fakes), accountId, fields);
    expect(loginCalls(fakes)).toBe(2);
    await expect(checkConnection(doctorDeps(fakes), accountId, fields)).rejects.toMatchObject({
      fieldErrors: { login: [expect.stringMatching(/refused this login .*2 times/)] },
    });
    expect(loginCalls(fakes)).toBe(2);
  });

  it('site_error for a login that failed on the site for another reason', async () => {
    const fakes = createFakes();
    fakes.cms.failWith(
      new CmsError('plugin_error', 'The plugin answered 500 (inkpress_busy)', 500, 'inkpress_busy'),
    );
    const report = await check(fakes);
    expect(report.problems).toEqual([
      expect.objectContaining({ code: 'site_error', message: expect.stringContaining('inkpress_busy') }),
    ]);
  });

  describe('never repeats the credentials a site echoes', () => {
    const password = 'hunter2 secret';
    const leaks = (report: unknown) => {
      const text = JSON.stringify(report);
      return [password, encodeURIComponent(password), 'hunter2%20secret'].some((form) => text.includes(form));
    };

    it.each<[string, SiteObstacle]>([
      [
        'a REST refusal whose message holds it',
        {
          kind: 'rest_blocked',
          status: 403,
          detail: `the REST API answered HTTP 403 (rest_forbidden: no access for ${password})`,
        },
      ],
      [
        'a redirect whose path holds it',
        {
          kind: 'redirected',
          status: 302,
          location: `https://blog.example.com/${encodeURIComponent(password)}/?rest_route=/inkpress/v1/probe`,
        },
      ],
      ['a server error quoting it', { kind: 'server_error', status: 500, detail: `HTTP 500 (${password})` }],
    ])('%s', async (_case, obstacle) => {
      const fakes = createFakes();
      fakes.probes.plugin = { kind: 'obstacle', obstacle };
      const report = await check(fakes, { password });
      expect(report.problems).toHaveLength(1);
      expect(report.problems[0]?.message).toMatch(/not shown/);
      expect(leaks(report)).toBe(false);
    });

    it("WordPress core naming the user after the application password (role_missing's message and fix)", async () => {
      const fakes = createFakes();
      fakes.probes.user = {
        kind: 'user',
        login: APP_PASSWORD,
        roles: ['author', APP_PASSWORD],
        capabilities: [],
      };
      fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
      const report = await check(fakes, { password: APP_PASSWORD });
      expect(report.problems).toEqual([
        expect.objectContaining({
          code: 'role_missing',
          fix: 'Give the user the Inkpress Editor role in Users on the site (and no other role), then check again.',
        }),
      ]);
      expect(JSON.stringify(report)).not.toContain(APP_PASSWORD);
    });

    it('a login failure quoting it (site_error)', async () => {
      const fakes = createFakes();
      fakes.cms.failWith(new CmsError('plugin_error', `The plugin answered 500 (${password})`, 500));
      const report = await check(fakes, { password });
      expect(codes(report.problems)).toEqual(['site_error']);
      expect(leaks(report)).toBe(false);
    });
  });

  it.each(['<script>alert(1)</script>9.9.9', '9.9.9 <b>', `1.${'9'.repeat(300)}`, 'latest'])(
    'a plugin_version that is no version (%s) is not shown, and named as not a version',
    async (version) => {
      const fakes = createFakes();
      fakes.probes.plugin = { kind: 'plugin', version, headers: { authorization: true, custom: true } };
      const report = await check(fakes);
      expect(report).toMatchObject({ connected: 1, plugin_version: null });
      expect(report.problems).toEqual([
        expect.objectContaining({
          code: 'plugin_outdated',
          message: expect.stringContaining('not a version number'),
        }),
      ]);
      expect(JSON.stringify(report)).not.toContain(version);
    },
  );

  it.each(['1.5.0', '1.5', '1.5.0-beta.2', '2.0.0+build.7'])(
    'shows a version-shaped plugin_version (%s)',
    async (version) => {
      const fakes = createFakes();
      fakes.probes.plugin = { kind: 'plugin', version, headers: { authorization: true, custom: true } };
      expect(await check(fakes)).toMatchObject({ connected: 1, plugin_version: version, problems: [] });
    },
  );

  it.each<[string, CmsError, string]>([
    [
      'a status answer with the wrong types',
      new CmsError('plugin_missing', "The site's answer on status is not the plugin's", 200),
      'site_error',
    ],
    [
      'a security refusal of the login route',
      new CmsError(
        'plugin_missing',
        'The site refused the request without the plugin (rest_forbidden)',
        403,
        'rest_forbidden',
      ),
      'rest_api_blocked',
    ],
    [
      'no login route where the probe route answers',
      new CmsError(
        'plugin_missing',
        'The site has no inkpress/v1 routes (rest_no_route)',
        404,
        'rest_no_route',
      ),
      'site_error',
    ],
  ])('the probe found the plugin, then %s: not plugin_missing', async (_case, failure, code) => {
    const fakes = createFakes();
    fakes.cms.failWith(failure);
    const report = await check(fakes);
    expect(report).toMatchObject({ connected: 0, plugin_version: '1.5.0' });
    expect(codes(report.problems)).toEqual([code]);
    expect(JSON.stringify(report)).not.toMatch(/Install and activate/);
  });

  it.each<[string, CmsError, SiteObstacle, string]>([
    [
      "a firewall's challenge page",
      new CmsError('unreachable', 'The site answered 403 with text/html instead of JSON', 403),
      { kind: 'challenge', status: 403, vendor: 'Cloudflare' },
      'challenge_page',
    ],
    [
      'no answer in time',
      new CmsNoAnswerError('unreachable', 'No complete answer from blog.example.com in time'),
      { kind: 'timeout', detail: 'No complete answer from blog.example.com in time' },
      'timeout',
    ],
    [
      'a server error page',
      new CmsError('unreachable', 'The site answered 502 (server error)', 502),
      { kind: 'server_error', status: 502, detail: 'HTTP 502 with text/html' },
      'server_error',
    ],
  ])('a login that met %s is named as the probe names it', async (_case, failure, obstacle, code) => {
    const fakes = createFakes();
    failure.obstacle = obstacle;
    fakes.cms.failWith(failure);
    const report = await check(fakes);
    expect(report.connected).toBe(0);
    expect(codes(report.problems)).toEqual([code]);
  });

  describe('a REST API closed to anonymous requests only (a security plugin refusing the probe)', () => {
    const refused: SiteObstacle = {
      kind: 'rest_blocked',
      status: 401,
      detail:
        'the REST API answered HTTP 401 (rest_cannot_access: Only authenticated users can access the REST API.)',
      anonymous: true,
    };

    it('still tries the login: connected when it works, with the version the login tells', async () => {
      const fakes = createFakes();
      fakes.probes.plugin = { kind: 'obstacle', obstacle: refused };
      const report = await check(fakes);
      expect(report).toMatchObject({ connected: 1, plugin_version: '1.2.0' });
      expect(codes(report.problems)).toEqual(['plugin_outdated']);
      expect(loginCalls(fakes)).toBe(1);
    });

    it('a wrong password is login_refused, not rest_api_blocked', async () => {
      const fakes = createFakes();
      fakes.probes.plugin = { kind: 'obstacle', obstacle: refused };
      fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
      expect(codes((await check(fakes)).problems)).toEqual(['login_refused']);
    });

    it('rest_api_blocked only when the login is refused alike', async () => {
      const fakes = createFakes();
      fakes.probes.plugin = { kind: 'obstacle', obstacle: refused };
      fakes.cms.failWith(
        new CmsError(
          'plugin_missing',
          'The site refused the request without the plugin (rest_cannot_access)',
          401,
          'rest_cannot_access',
        ),
      );
      const report = await check(fakes);
      expect(report.problems).toEqual([
        expect.objectContaining({
          code: 'rest_api_blocked',
          message: expect.stringContaining('rest_cannot_access'),
        }),
      ]);
    });

    it("a failed create's problems name the refused login", async () => {
      const fakes = createFakes();
      const accountId = await fakes.account(0);
      fakes.probes.plugin = { kind: 'obstacle', obstacle: refused };
      fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
      await expect(
        createWebsite(
          {
            websites: fakes.websites,
            categories: fakes.categories,
            cipher: fakes.cipher,
            cms: fakes.cms,
            probes: fakes.probes,
            loginFailures: fakes.loginFailures,
            now: fakes.clock,
          },
          accountId,
          fields,
        ),
      ).rejects.toMatchObject({ problems: [expect.objectContaining({ code: 'login_refused' })] });
    });
  });

  describe('one deadline for the whole check: each call gets what is left of it', () => {
    /** Every call takes all the time it is given (10 s when given none, the client's own limit). */
    const slowSite = (fakes: Fakes) => {
      const started = fakes.clock().getTime();
      fakes.probes.spend = (timeoutMs) => fakes.time.advance(timeoutMs);
      fakes.cms.spend = (timeoutMs) => fakes.time.advance(timeoutMs ?? 10_000);
      return () => fakes.clock().getTime() - started;
    };

    it('a login that works slowly', async () => {
      const fakes = createFakes();
      const spent = slowSite(fakes);
      expect((await check(fakes)).connected).toBe(1);
      expect(spent()).toBeLessThanOrEqual(CHECK_BUDGET_MS);
      expect(fakes.cms.calls.map((call) => call.timeoutMs)).toEqual([
        10_000,
        CHECK_BUDGET_MS - 8_000 - 10_000,
      ]);
    });

    it("a refused application password, then WordPress core's answer", async () => {
      const fakes = createFakes();
      const spent = slowSite(fakes);
      fakes.probes.plugin = { kind: 'plugin_without_probe' };
      fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
      await check(fakes, { password: APP_PASSWORD });
      expect(spent()).toBeLessThanOrEqual(CHECK_BUDGET_MS);
      expect(fakes.probes.calls.map((call) => call.timeoutMs)).toEqual([
        8_000,
        CHECK_BUDGET_MS - 8_000 - 10_000,
      ]);
    });

    it("a failed create's diagnosis gets what is left of the create's time", async () => {
      const fakes = createFakes();
      const accountId = await fakes.account(0);
      const spent = slowSite(fakes);
      fakes.cms.failWith(null, new CmsNoAnswerError('unreachable', 'No complete answer in time'));
      const { probes, cms, loginFailures, websites, categories, cipher } = fakes;
      await expect(
        createWebsite(
          { probes, cms, loginFailures, websites, categories, cipher, now: fakes.clock },
          accountId,
          fields,
        ),
      ).rejects.toBeInstanceOf(SiteProblemsError);
      expect(spent()).toBeLessThanOrEqual(CHECK_BUDGET_MS);
      expect(fakes.probes.calls.map((call) => call.timeoutMs)).toEqual([CHECK_BUDGET_MS - 20_000]);
    });

    it("with no time left for the probe, a failed create tells the login's own failure", async () => {
      const fakes = createFakes();
      const accountId = await fakes.account(0);
      fakes.cms.spend = () => fakes.time.advance(11_000);
      const timedOut = new CmsNoAnswerError('unreachable', 'No complete answer in time');
      timedOut.obstacle = { kind: 'timeout', detail: 'No complete answer in time' };
      fakes.cms.failWith(null, timedOut);
      const { probes, cms, loginFailures, websites, categories, cipher } = fakes;
      await expect(
        createWebsite(
          { probes, cms, loginFailures, websites, categories, cipher, now: fakes.clock },
          accountId,
          fields,
        ),
      ).rejects.toMatchObject({ problems: [expect.objectContaining({ code: 'timeout' })] });
      expect(fakes.probes.calls).toEqual([]);
    });
  });

  it('tells an application password by its shape', () => {
    expect(isApplicationPassword(APP_PASSWORD)).toBe(true);
    expect(isApplicationPassword('abcdEFGHijklMNOPqrstUVWX')).toBe(true);
    expect(isApplicationPassword('correct horse battery staple')).toBe(false);
    expect(isApplicationPassword('abcd-EFGH-ijkl-MNOP-qrst-UVWX')).toBe(false);
  });
});

describe('the diagnosis in a failed website create or update', () => {
  const websiteDeps = (fakes: Fakes) => ({
    websites: fakes.websites,
    categories: fakes.categories,
    cipher: fakes.cipher,
    cms: fakes.cms,
    probes: fakes.probes,
    loginFailures: fakes.loginFailures,
    publications: fakes.publications,
    siteIndex: fakes.siteIndex,
    now: fakes.clock,
  });

  it('a refused create lists the problems, with the same field errors, and logs in only once', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
    const error = await createWebsite(websiteDeps(fakes), accountId, fields).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SiteProblemsError);
    expect(error).toMatchObject({
      fieldErrors: { login: [expect.stringMatching(/login failed/)], password: [expect.any(String)] },
      problems: [expect.objectContaining({ code: 'login_refused' })],
    });
    expect(loginCalls(fakes)).toBe(1);
  });

  it('a create the site redirects says where to register instead', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    fakes.cms.failWith(new CmsError('unreachable', 'The site answered 301'));
    fakes.probes.plugin = {
      kind: 'obstacle',
      obstacle: {
        kind: 'redirected',
        status: 301,
        location: 'https://www.blog.example.com/?rest_route=/inkpress/v1/probe',
      },
    };
    await expect(createWebsite(websiteDeps(fakes), accountId, fields)).rejects.toMatchObject({
      problems: [
        expect.objectContaining({
          code: 'redirected',
          fix: expect.stringContaining('https://www.blog.example.com'),
        }),
      ],
    });
  });

  it('an update whose new password is refused lists the problems', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    const website = await fakes.website(accountId);
    fakes.cms.failWith(new CmsError('throttled', 'paused', 429, 'inkpress_throttled', 60));
    await expect(
      updateWebsite(websiteDeps(fakes), accountId, website.websiteUuid, {
        login: 'inkpress',
        password: 'new',
      }),
    ).rejects.toMatchObject({ problems: [expect.objectContaining({ code: 'login_paused' })] });
  });

  it('a refused login that could not reach the plugin (both login headers stripped) is not counted, and is told as such', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    const website = await fakes.website(accountId);
    fakes.probes.plugin = {
      kind: 'plugin',
      version: '1.5.0',
      headers: { authorization: false, custom: false },
    };
    const refused = () =>
      new CmsError('unauthorized', 'The site refused the login', 401, 'inkpress_login_failed');
    for (let attempt = 0; attempt < 3; attempt++) {
      fakes.cms.failWith(refused());
      await expect(createWebsite(websiteDeps(fakes), accountId, fields)).rejects.toMatchObject({
        fieldErrors: { url: [expect.stringContaining('removes both login headers')] },
        problems: [expect.objectContaining({ code: 'auth_header_stripped' })],
      });
      fakes.cms.failWith(refused());
      await expect(
        updateWebsite(websiteDeps(fakes), accountId, website.websiteUuid, {
          login: 'inkpress',
          password: 'new one',
        }),
      ).rejects.toMatchObject({
        fieldErrors: { url: [expect.stringContaining('removes both login headers')] },
      });
    }
    // Six refusals, none counted: every one reached the site, and the cap is still open.
    expect(loginCalls(fakes)).toBe(6);
    expect(fakes.probes.calls.filter((call) => call.kind === 'probePlugin')).toHaveLength(6);
  });

  it('a refused login that reached the plugin still counts toward the cap', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    const refused = () =>
      new CmsError('unauthorized', 'The site refused the login', 401, 'inkpress_login_failed');
    for (let attempt = 0; attempt < 2; attempt++) {
      fakes.cms.failWith(refused());
      await expect(createWebsite(websiteDeps(fakes), accountId, fields)).rejects.toBeInstanceOf(
        SiteProblemsError,
      );
    }
    await expect(createWebsite(websiteDeps(fakes), accountId, fields)).rejects.toMatchObject({
      fieldErrors: { login: [expect.stringMatching(/2 times/)] },
    });
    expect(loginCalls(fakes)).toBe(2);
  });

  it('a create without the probes (or whose failure is not the site) is the plain 422', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    fakes.cms.failWith(new CmsError('unauthorized', 'refused', 401, 'inkpress_login_failed'));
    const { probes: _probes, ...withoutProbes } = websiteDeps(fakes);
    const error = await createWebsite(withoutProbes, accountId, fields).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).not.toBeInstanceOf(SiteProblemsError);
  });
});
