/**
 * The connection doctor through its handler (`POST /v1/websites/check`) and the website create
 * handler, against DynamoDB Local and sites on 127.0.0.1: the fake plugin (fake-wordpress.ts),
 * fault servers (a firewall's challenge page, a REST API closed by a security plugin, a server
 * that never answers), a TLS server with a self-signed certificate and a `.invalid` name. Every
 * code comes from the real probes through the SSRF-guarded client; the answers fit the OpenAPI
 * document.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { WordPressConnectionProbes } from '../../functions/adapters/wordpress/connection-probes';
import { systemResolver } from '../../functions/adapters/wordpress/ssrf-guard';
import { DEFAULT_SITE_LIMITS } from '../../functions/adapters/wordpress/wordpress-client';
import { handler as checkWebsiteHandler } from '../../functions/api/check-website';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { openApiDocument } from '../../functions/api/openapi/document';
import { createAccount } from '../../functions/core/accounts';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { type LocalHttpServer, startLocalHttpServer } from '../support/local-http-server';
import { multipartBody } from '../support/multipart';
import { type ResponseValidator, responseValidator } from '../support/openapi-validator';
import { provisionTestResources } from '../support/test-resources';

const PASSWORD = 'correct horse battery';
const APP_PASSWORD = 'abcd EFGH ijkl MNOP qrst UVWX';

let site: FakeWordPress;
let validator: ResponseValidator;

beforeAll(async () => {
  site = await startFakeWordPress();
  await provisionTestResources({ PUBLIC_BASE_URL: '' });
  validator = responseValidator(
    JSON.parse(JSON.stringify(openApiDocument('http://localhost'))) as Record<string, unknown>,
  );
});

afterAll(async () => {
  await site.close();
});

beforeEach(() => {
  site.mode = 'ok';
  site.redirectLocation = undefined;
  site.requests = [];
  site.failedLogins.clear();
  site.pluginVersion = '1.5.0';
  site.probeRoute = true;
  site.strippedHeaders = [];
  site.users.set('inkpress', { password: PASSWORD, roles: ['inkpress_editor'] });
});

async function newAccount(): Promise<string> {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Doctor test', credits: 0 },
  );
  return account.accountId;
}

interface Report {
  url: string;
  connected: 0 | 1;
  plugin_version: string | null;
  problems: { code: string; message: string; fix: string }[];
}

async function check(
  fields: Partial<Record<'url' | 'login' | 'password', string>> = {},
  accountId?: string,
): Promise<{ status: number; report: Report; body: Record<string, unknown> }> {
  const response: APIGatewayProxyResult = await checkWebsiteHandler(
    apiEvent('check-website', {
      accountId: accountId ?? (await newAccount()),
      ...multipartBody({ url: site.url, login: 'inkpress', password: PASSWORD, ...fields }),
    }),
  );
  const body = JSON.parse(response.body);
  validator.check('POST', '/v1/websites/check', response.statusCode, body);
  return { status: response.statusCode, report: body.data, body };
}

const codes = (report: Report) => report.problems.map((problem) => problem.code);
const loginsSent = () => site.requests.filter((request) => request.login !== null).length;

async function faultServer(
  answer: (response: import('node:http').ServerResponse) => void,
): Promise<LocalHttpServer> {
  return startLocalHttpServer((_request, response) => answer(response));
}

/** Answers a request in place of the site (true), or lets it through to the fake plugin (false). */
type Fault = (route: string, request: IncomingMessage, response: ServerResponse) => boolean;

/** A proxy in front of the fake plugin that answers some routes itself (`fault`). */
async function faultProxy(fault: Fault): Promise<LocalHttpServer> {
  const target = new URL(site.url);
  const proxy = await startLocalHttpServer((request, response, body) => {
    const route = new URL(request.url ?? '/', 'http://proxy').searchParams.get('rest_route') ?? '';
    if (fault(route, request, response)) return;
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.end(body);
  });
  return { url: `${proxy.url}${target.pathname.replace(/\/+$/, '')}`, close: () => proxy.close() };
}

const sendJson = (response: ServerResponse, status: number, body: unknown, headers = {}) =>
  response
    .writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8', ...headers })
    .end(typeof body === 'string' ? body : JSON.stringify(body));

async function createThrough(url: string, fields: Record<string, string> = {}) {
  const response = await createWebsiteHandler(
    apiEvent('create-website', {
      accountId: await newAccount(),
      ...multipartBody({ url, login: 'inkpress', password: PASSWORD, ...fields }),
    }),
  );
  const body = JSON.parse(response.body);
  validator.check('POST', '/v1/websites/create', response.statusCode, body);
  return { status: response.statusCode, body };
}

describe('POST /v1/websites/check against the fake plugin', () => {
  it('a site that connects: 200, connected, no problems; the probe sent no login', async () => {
    const { status, report } = await check();
    expect(status).toBe(200);
    expect(report).toEqual({ url: site.url, connected: 1, plugin_version: '1.5.0', problems: [] });
    expect(site.requests[0]).toEqual({ method: 'GET', route: '/inkpress/v1/probe', login: null });
    expect(site.failedLogins.size).toBe(0);
  });

  it('plugin_missing: WordPress answers without the plugin; no login is sent', async () => {
    site.mode = 'no_plugin';
    const { report } = await check();
    expect(report.connected).toBe(0);
    expect(codes(report)).toEqual(['plugin_missing']);
    expect(loginsSent()).toBe(0);
  });

  it('plugin_outdated: a plugin without the probe route, its version from the login', async () => {
    site.probeRoute = false;
    site.pluginVersion = '1.4.0';
    const { report } = await check();
    expect(report).toMatchObject({ connected: 1, plugin_version: '1.4.0' });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'plugin_outdated',
        message: expect.stringContaining('version 1.4.0; version 1.5.0 or later is needed'),
      }),
    ]);
  });

  it('auth_header_stripped: the host drops Authorization; the plugin header works and is named', async () => {
    site.strippedHeaders = ['authorization'];
    const { report } = await check();
    expect(report.connected).toBe(1);
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'auth_header_stripped',
        message: expect.stringContaining('X-Inkpress-Authorization, arrives'),
      }),
    ]);
  });

  it('auth_header_stripped with both headers dropped: no fallback, and no login is sent', async () => {
    site.strippedHeaders = ['authorization', 'x-inkpress-authorization'];
    const { report } = await check();
    expect(report.connected).toBe(0);
    expect(codes(report)).toEqual(['auth_header_stripped']);
    expect(report.problems[0]?.message).toContain('does not arrive either');
    expect(site.requests.filter((request) => request.route === '/inkpress/v1/status')).toEqual([]);
  });

  it('login_refused: a wrong password, a user without the role and an administrator with it answer alike', async () => {
    site.users.set('author', { password: 'author pass', roles: ['author'] });
    site.users.set('boss', { password: 'boss pass', roles: ['administrator', 'inkpress_editor'] });
    const answers = [
      await check({ password: 'wrong' }),
      await check({ login: 'author', password: 'author pass' }),
      await check({ login: 'boss', password: 'boss pass' }),
    ].map(({ report }) => report.problems);
    expect(answers[0]).toEqual([
      expect.objectContaining({
        code: 'login_refused',
        fix: expect.stringContaining('Settings > Inkpress Connector'),
      }),
    ]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    expect(site.requests.some((request) => request.route.startsWith('/wp/v2/'))).toBe(false);
  });

  it('role_too_powerful and role_missing: application passwords, as WordPress core tells them', async () => {
    site.users.set('admin', {
      password: 'admin pass',
      roles: ['administrator'],
      appPasswords: [APP_PASSWORD.replace(/ /g, '')],
    });
    site.users.set('author', {
      password: 'author pass',
      roles: ['author'],
      appPasswords: [APP_PASSWORD.replace(/ /g, '')],
    });
    // WordPress strips the spaces of an application password; the fake compares as sent.
    const powerful = await check({ login: 'admin', password: APP_PASSWORD.replace(/ /g, '') });
    expect(powerful.report.problems).toEqual([
      expect.objectContaining({ code: 'role_too_powerful', message: expect.stringContaining('admin') }),
    ]);
    const missing = await check({ login: 'author', password: APP_PASSWORD.replace(/ /g, '') });
    expect(missing.report.problems).toEqual([
      expect.objectContaining({ code: 'role_missing', message: expect.stringContaining('(roles: author)') }),
    ]);
    // A wrong application password: core would say "incorrect_password"; the doctor does not.
    const wrong = await check({ login: 'admin', password: 'ZZZZ'.repeat(6) });
    expect(codes(wrong.report)).toEqual(['login_refused']);
  });

  it("login_paused: the plugin's throttle, with when it ends", async () => {
    const path = new URL(site.url).pathname.replace(/\/+$/, '');
    const now = Date.now();
    site.failedLogins.set(`${path}|inkpress`, [now, now, now, now, now]);
    const { report } = await check();
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'login_paused',
        message: expect.stringMatching(/until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/),
      }),
    ]);
    const until = Date.parse(/until (\S+Z)/.exec(report.problems[0]?.message ?? '')?.[1] ?? '');
    expect(until).toBeGreaterThan(now + 14 * 60_000);
    expect(until).toBeLessThan(now + 16 * 60_000);
  });

  it("counts refused logins toward the account's cap, as a create does: the third is a 422", async () => {
    const accountId = await newAccount();
    // A login of its own: the site-wide cap (across accounts) counts per login too.
    const fields = { login: 'capped', password: 'wrong' };
    await check(fields, accountId);
    await check(fields, accountId);
    const third = await check(fields, accountId);
    expect(third.status).toBe(422);
    expect(third.body).toMatchObject({
      errors: { login: [expect.stringMatching(/refused this login .*2 times/)] },
    });
    expect(loginsSent()).toBe(2);
  });

  it('redirected: a site that redirects to https names the https address', async () => {
    site.redirectLocation = `https://${new URL(site.url).host}/?rest_route=/inkpress/v1/probe`;
    const { report } = await check();
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'redirected',
        fix: `Register https://${new URL(site.url).host} instead, the address the site answers at.`,
      }),
    ]);
    expect(loginsSent()).toBe(0);
  });

  it('not_wordpress: a page for a REST address, without WordPress marks', async () => {
    site.mode = 'html';
    expect(codes((await check()).report)).toEqual(['not_wordpress']);
  });

  it('refuses bad input with a 422 before calling the site', async () => {
    const { status, body } = await check({ password: '' });
    expect(status).toBe(422);
    expect(body).toMatchObject({ errors: { password: [expect.any(String)] } });
    expect(site.requests).toEqual([]);
  });
});

describe('POST /v1/websites/check against faults', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  const serve = async (answer: (response: import('node:http').ServerResponse) => void) => {
    const server = await faultServer(answer);
    servers.push(server);
    return server.url;
  };

  it.each([
    [
      'Cloudflare',
      { 'Content-Type': 'text/html; charset=UTF-8', Server: 'cloudflare', 'CF-RAY': '8f1c2a9e8b3d4c5e-CDG' },
      '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div id="challenge-platform">Checking your browser</div></body></html>',
    ],
    [
      'Sucuri',
      { 'Content-Type': 'text/html', 'X-Sucuri-ID': '11005', Server: 'Sucuri/Cloudproxy' },
      '<html><title>Sucuri WebSite Firewall - Access Denied</title><body>Access Denied</body></html>',
    ],
    [
      'Wordfence',
      { 'Content-Type': 'text/html' },
      '<html><body><h1>Your access to this site has been limited by the site owner</h1><p>Generated by Wordfence</p></body></html>',
    ],
  ])('challenge_page: %s answers with its page', async (vendor, headers, page) => {
    const url = await serve((response) => response.writeHead(403, headers).end(page));
    const { report } = await check({ url });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'challenge_page',
        message: expect.stringContaining(`${vendor} answered`),
      }),
    ]);
  });

  it('rest_api_blocked: a security plugin closes the REST API to anonymous requests', async () => {
    const url = await serve((response) =>
      response.writeHead(401, { 'Content-Type': 'application/json; charset=UTF-8' }).end(
        JSON.stringify({
          code: 'rest_cannot_access',
          message: 'Only authenticated users can access the REST API.',
          data: { status: 401 },
        }),
      ),
    );
    const { report } = await check({ url });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'rest_api_blocked',
        message: expect.stringContaining('rest_cannot_access'),
      }),
    ]);
  });

  it('rest_api_blocked: WordPress answers REST addresses with its home page', async () => {
    const url = await serve((response) =>
      response
        .writeHead(200, {
          'Content-Type': 'text/html',
          Link: '<http://x/wp-json/>; rel="https://api.w.org/"',
        })
        .end(
          '<html><head><link rel="stylesheet" href="/wp-content/themes/x/style.css"></head><body>Blog</body></html>',
        ),
    );
    expect(codes((await check({ url })).report)).toEqual(['rest_api_blocked']);
  });

  it('server_error: a 500 page', async () => {
    const url = await serve((response) =>
      response
        .writeHead(500, { 'Content-Type': 'text/html' })
        .end('<h1>Error establishing a database connection</h1>'),
    );
    expect(codes((await check({ url })).report)).toEqual(['server_error']);
  });

  it('redirected to a file: address names the scheme (not "null/etc/passwd")', async () => {
    const url = await serve((response) => response.writeHead(302, { Location: 'file:///etc/passwd' }).end());
    const { report } = await check({ url });
    expect(report.problems).toEqual([
      expect.objectContaining({ code: 'redirected', message: expect.stringContaining('to a file: address') }),
    ]);
    expect(JSON.stringify(report)).not.toContain('null/');
  });

  it('site_error, not unreachable: an answer larger than the probe reads', async () => {
    const url = await serve((response) =>
      response.writeHead(200, { 'Content-Type': 'text/html' }).end('x'.repeat(3 * 1024 * 1024)),
    );
    const { report } = await check({ url });
    expect(report.problems).toEqual([
      expect.objectContaining({ code: 'site_error', message: expect.stringContaining('larger than 1 MB') }),
    ]);
  });

  it('dns_unresolved: a name that cannot resolve (.invalid)', async () => {
    const { report } = await check({ url: 'http://doctor-check.inkpress.invalid' });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'dns_unresolved',
        message: expect.stringContaining('doctor-check.inkpress.invalid'),
      }),
    ]);
  });

  it('unreachable: nothing listens', async () => {
    const url = await serve((response) => response.end());
    await servers.pop()?.close();
    expect(codes((await check({ url })).report)).toEqual(['unreachable']);
  });

  describe('tls_invalid', () => {
    let dir: string;
    let server: HttpsServer;
    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'inkpress-doctor-tls-'));
      const made = spawnSync('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ]);
      if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
      server = createHttpsServer(
        { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
        (_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });

    it('a self-signed certificate', async () => {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { report } = await check({ url });
      expect(report.problems).toEqual([
        expect.objectContaining({ code: 'tls_invalid', message: expect.stringContaining('SELF_SIGNED') }),
      ]);
    });
  });
});

describe('POST /v1/websites/check and create through a fault proxy in front of the plugin', () => {
  const proxies: LocalHttpServer[] = [];
  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });
  const proxied = async (fault: Fault) => {
    const proxy = await faultProxy(fault);
    proxies.push(proxy);
    return proxy.url;
  };

  it('login_paused, not a 500, when the plugin pauses the login with an absurd Retry-After', async () => {
    const url = await proxied((route, _request, response) => {
      if (!/^\/inkpress\/v1\/(status|categories)$/.test(route)) return false;
      sendJson(
        response,
        429,
        { code: 'inkpress_login_throttled' },
        { 'Retry-After': '99999999999999999999' },
      );
      return true;
    });
    const { status, report } = await check({ url });
    expect(status).toBe(200);
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'login_paused',
        message: expect.stringContaining('did not say until when'),
      }),
    ]);
    const created = await createThrough(url);
    expect(created.status).toBe(422);
    expect(created.body.problems).toEqual([expect.objectContaining({ code: 'login_paused' })]);
  });

  it("challenge_page, not site_error, when a firewall's challenge meets only the login", async () => {
    const url = await proxied((route, _request, response) => {
      if (!/^\/inkpress\/v1\/(status|categories)$/.test(route)) return false;
      response
        .writeHead(403, {
          'Content-Type': 'text/html; charset=UTF-8',
          Server: 'cloudflare',
          'CF-RAY': '8f1c-CDG',
        })
        .end('<!DOCTYPE html><html><head><title>Just a moment...</title></head><body></body></html>');
      return true;
    });
    const { report } = await check({ url });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'challenge_page',
        message: expect.stringContaining('Cloudflare answered'),
      }),
    ]);
    const created = await createThrough(url);
    expect(created.body.problems).toEqual([expect.objectContaining({ code: 'challenge_page' })]);
  });

  describe('a REST API closed to anonymous requests only', () => {
    /** Like the "Disable REST API" plugins: a 401 to a request without a login, the site otherwise. */
    const closedToAnonymous: Fault = (route, request, response) => {
      if (!route.startsWith('/') || /^Basic /i.test(String(request.headers.authorization ?? '')))
        return false;
      sendJson(response, 401, {
        code: 'rest_cannot_access',
        message: 'Only authenticated users can access the REST API.',
        data: { status: 401 },
      });
      return true;
    };

    it('the check tries the login and connects, as a create does', async () => {
      const url = await proxied(closedToAnonymous);
      const { report } = await check({ url });
      expect(report).toMatchObject({ connected: 1, plugin_version: '1.5.0', problems: [] });
      expect((await createThrough(url)).status).toBe(201);
    });

    it('a wrong password is login_refused in the check and in the failed create', async () => {
      const url = await proxied(closedToAnonymous);
      const { report } = await check({ url, login: 'closed-rest', password: 'wrong' });
      expect(codes(report)).toEqual(['login_refused']);
      const created = await createThrough(url, { login: 'closed-rest-create', password: 'wrong' });
      expect(created.status).toBe(422);
      expect(created.body.problems).toEqual([expect.objectContaining({ code: 'login_refused' })]);
    });
  });

  it('PHP notices before the JSON: the check connects, as a create does', async () => {
    const url = await proxied((route, request, response) => {
      if (route !== '/inkpress/v1/probe') return false;
      sendJson(
        response,
        200,
        `<br />\n<b>Notice</b>:  Undefined index: x in <b>/var/www/wp-config.php</b> on line <b>90</b><br />\n${JSON.stringify(
          {
            plugin_version: '1.5.0',
            auth_headers: {
              authorization: request.headers.authorization !== undefined,
              x_inkpress_authorization: request.headers['x-inkpress-authorization'] !== undefined,
            },
          },
        )}`,
      );
      return true;
    });
    const { report } = await check({ url });
    expect(report).toEqual({ url, connected: 1, plugin_version: '1.5.0', problems: [] });
  });

  it.each<[string, string, number, unknown, string]>([
    [
      'status answers 200 with the wrong types',
      '/inkpress/v1/status',
      200,
      { user: { id: 'x' }, plugin_version: 1 },
      'site_error',
    ],
    [
      'categories answer 200 with the wrong types',
      '/inkpress/v1/categories',
      200,
      { categories: [{ id: 'one' }] },
      'site_error',
    ],
    [
      'the login route answers 403 rest_forbidden',
      '/inkpress/v1/status',
      403,
      { code: 'rest_forbidden', message: 'Sorry, you are not allowed to do that.' },
      'rest_api_blocked',
    ],
  ])(
    'the probe found the plugin, then %s: not plugin_missing',
    async (_case, faulty, status, answer, code) => {
      const url = await proxied((route, _request, response) => {
        if (route !== faulty) return false;
        sendJson(response, status, answer);
        return true;
      });
      const { report } = await check({ url });
      expect(report).toMatchObject({ connected: 0, plugin_version: '1.5.0' });
      expect(codes(report)).toEqual([code]);
      const created = await createThrough(url);
      expect(created.status).toBe(422);
      expect(created.body.problems.map((found: { code: string }) => found.code)).toEqual([code]);
      expect(JSON.stringify(created.body)).not.toMatch(/Install and activate/);
    },
  );
});

describe('a hostile site echoing the password', () => {
  const proxies: LocalHttpServer[] = [];
  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });
  const proxied = async (fault: Fault) => {
    const proxy = await faultProxy(fault);
    proxies.push(proxy);
    return proxy.url;
  };
  const password = 'hunter2 secret pass';
  const leaks = (body: unknown) => {
    const text = JSON.stringify(body);
    return [password, encodeURIComponent(password), 'hunter2%20secret'].filter((form) => text.includes(form));
  };

  it("a REST refusal quoting it is not repeated in a create's problems, nor in a check", async () => {
    const url = await proxied((route, _request, response) => {
      if (!route.startsWith('/inkpress/v1')) return false;
      sendJson(response, 403, { code: 'rest_forbidden', message: `Forbidden for ${password}` });
      return true;
    });
    const created = await createThrough(url, { password });
    expect(created.status).toBe(422);
    expect(created.body.problems).not.toEqual([]);
    expect(leaks(created.body)).toEqual([]);
    expect(leaks((await check({ url, password })).body)).toEqual([]);
  });

  it('a redirect whose path holds it is not repeated (message nor fix)', async () => {
    const url = await proxied((route, request, response) => {
      if (!route.startsWith('/inkpress/v1')) return false;
      const here = `http://${request.headers.host}`;
      response
        .writeHead(302, { Location: `${here}/${encodeURIComponent(password)}/?rest_route=${route}` })
        .end();
      return true;
    });
    const created = await createThrough(url, { password });
    expect(created.status).toBe(422);
    expect(created.body.problems).toEqual([expect.objectContaining({ code: 'redirected' })]);
    expect(leaks(created.body)).toEqual([]);
    const { report, body } = await check({ url, password });
    expect(report.problems).toEqual([expect.objectContaining({ code: 'redirected' })]);
    expect(leaks(body)).toEqual([]);
  });

  it("WordPress core's users/me naming the user after the application password is not repeated", async () => {
    const url = await proxied((route, _request, response) => {
      if (!route.startsWith('/wp/v2/users/me')) return false;
      sendJson(response, 200, { username: APP_PASSWORD, roles: ['author'], capabilities: { read: true } });
      return true;
    });
    const { report, body } = await check({ url, login: 'someone', password: APP_PASSWORD });
    expect(report.problems).toEqual([expect.objectContaining({ code: 'role_missing' })]);
    expect(JSON.stringify(body)).not.toContain(APP_PASSWORD);
  });

  it('a plugin_version with markup is not shown', async () => {
    const url = await proxied((route, _request, response) => {
      if (route !== '/inkpress/v1/probe') return false;
      sendJson(response, 200, {
        plugin_version: '<script>alert(1)</script>9.9.9',
        auth_headers: { authorization: true, x_inkpress_authorization: true },
      });
      return true;
    });
    const { report, body } = await check({ url });
    expect(report).toMatchObject({ connected: 1, plugin_version: null });
    expect(report.problems).toEqual([expect.objectContaining({ code: 'plugin_outdated' })]);
    expect(JSON.stringify(body)).not.toContain('<script>');
  });
});

describe('the probes with a short timeout', () => {
  it('timeout: a server that never answers', async () => {
    const silent = await startLocalHttpServer(() => {
      // never answers
    });
    try {
      const probes = new WordPressConnectionProbes({
        ...DEFAULT_SITE_LIMITS,
        allowPrivate: true,
        resolve: systemResolver,
      });
      const started = Date.now();
      const probe = await probes.probePlugin(silent.url, 300);
      expect(probe).toEqual({ kind: 'obstacle', obstacle: { kind: 'timeout', detail: expect.any(String) } });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await silent.close();
    }
  });
});

describe('POST /v1/websites/create when the site check fails', () => {
  it('the 422 keeps its field errors and lists the problems', async () => {
    const response = await createWebsiteHandler(
      apiEvent('create-website', {
        accountId: await newAccount(),
        ...multipartBody({ url: site.url, login: 'refused-create', password: 'wrong' }),
      }),
    );
    const body = JSON.parse(response.body);
    expect(response.statusCode).toBe(422);
    validator.check('POST', '/v1/websites/create', 422, body);
    expect(body).toMatchObject({
      errors: { login: [expect.any(String)], password: [expect.any(String)] },
      problems: [expect.objectContaining({ code: 'login_refused' })],
    });
    // One login (the create's own), not a second one for the diagnosis.
    expect(loginsSent()).toBe(1);
  });

  it('a host stripping both login headers: each create says so, and none uses up a failed login', async () => {
    site.strippedHeaders = ['authorization', 'x-inkpress-authorization'];
    const accountId = await newAccount();
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await createWebsiteHandler(
        apiEvent('create-website', {
          accountId,
          ...multipartBody({ url: site.url, login: 'stripped-headers', password: PASSWORD }),
        }),
      );
      const body = JSON.parse(response.body);
      expect(response.statusCode).toBe(422);
      expect(body).toMatchObject({
        errors: { url: [expect.stringContaining('removes both login headers')] },
        problems: [expect.objectContaining({ code: 'auth_header_stripped' })],
      });
      expect(body.errors.login).toBeUndefined();
    }
  });

  it('a site without the plugin is told as plugin_missing', async () => {
    site.mode = 'no_plugin';
    const response = await createWebsiteHandler(
      apiEvent('create-website', {
        accountId: await newAccount(),
        ...multipartBody({ url: site.url, login: 'inkpress', password: PASSWORD }),
      }),
    );
    expect(JSON.parse(response.body).problems).toEqual([expect.objectContaining({ code: 'plugin_missing' })]);
  });
});
