/**
 * The connection doctor (`POST /v1/websites/check`) against the real WordPress of the e2e peer
 * (test/e2e/wordpress/peer.sh) with this repo's plugin, some checks through a small fault proxy
 * on 127.0.0.1 in front of it: a deactivated plugin, a proxy that drops the Authorization header,
 * a Cloudflare-like challenge page, a redirect to https, a refused login, and an administrator's
 * application password.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { handler as checkWebsiteHandler } from '../../functions/api/check-website';
import { createAccount } from '../../functions/core/accounts';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { multipartBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';
import { e2eEnv as env } from './support/test-site';
import { peer } from './support/wordpress-peer';

const WP_URL = env('WP_URL');

type ProxyMode = 'pass' | 'strip_authorization' | 'challenge' | 'redirect_https';

/** A proxy in front of the peer that misbehaves as `mode` says. */
let mode: ProxyMode = 'pass';
let proxy: Server;
let proxyUrl: string;

function forward(request: IncomingMessage, response: ServerResponse): void {
  const target = new URL(WP_URL);
  const headers = { ...request.headers, host: target.host };
  if (mode === 'strip_authorization') delete headers.authorization;
  const upstream = httpRequest(
    { host: target.hostname, port: target.port, method: request.method, path: request.url, headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on('error', () => response.writeHead(502).end());
  request.pipe(upstream);
}

const php = (code: string) => peer('php-eval', code).trim();
const resetThrottle = () => php('Inkpress_Throttle::reset_all();');

let accountId: string;

beforeAll(async () => {
  await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
  proxy = createServer((request, response) => {
    if (mode === 'challenge') {
      response
        .writeHead(403, {
          'Content-Type': 'text/html; charset=UTF-8',
          Server: 'cloudflare',
          'CF-RAY': '8f1c2a9e8b3d4c5e-CDG',
        })
        .end(
          '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body><div id="challenge-body-text">Verify you are human by completing the action below.</div><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></body></html>',
        );
      return;
    }
    if (mode === 'redirect_https') {
      response.writeHead(301, { Location: `https://${request.headers.host}${request.url}` }).end();
      return;
    }
    forward(request, response);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  resetThrottle();
});

beforeEach(async () => {
  mode = 'pass';
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Connection doctor', credits: 0 },
  );
  accountId = account.accountId;
});

interface Report {
  url: string;
  connected: 0 | 1;
  plugin_version: string | null;
  problems: { code: string; message: string; fix: string }[];
}

async function check(fields: { url?: string; login?: string; password?: string } = {}): Promise<Report> {
  const response = await checkWebsiteHandler(
    apiEvent('check-website', {
      accountId,
      ...multipartBody({
        url: WP_URL,
        login: env('WP_LOGIN'),
        password: env('WP_PASSWORD'),
        ...fields,
      }),
    }),
  );
  expect(response.statusCode).toBe(200);
  return JSON.parse(response.body).data as Report;
}

const codes = (report: Report) => report.problems.map((problem) => problem.code);

describe('connection doctor against the real WordPress', () => {
  it('a site that connects, with the real password and with an application password', async () => {
    const report = await check();
    expect(report).toEqual({ url: WP_URL, connected: 1, plugin_version: '1.5.2', problems: [] });
    expect(await check({ password: env('WP_APP_PASSWORD') })).toMatchObject({ connected: 1, problems: [] });
  });

  it('plugin_missing: the plugin deactivated', async () => {
    php("deactivate_plugins( 'inkpress-connector/inkpress-connector.php' );");
    try {
      const report = await check();
      expect(report.connected).toBe(0);
      expect(codes(report)).toEqual(['plugin_missing']);
    } finally {
      php("activate_plugin( 'inkpress-connector/inkpress-connector.php' );");
    }
  });

  it('auth_header_stripped: a proxy drops Authorization; the plugin header still logs in', async () => {
    mode = 'strip_authorization';
    const report = await check({ url: proxyUrl });
    expect(report.connected).toBe(1);
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'auth_header_stripped',
        message: expect.stringContaining('X-Inkpress-Authorization, arrives'),
      }),
    ]);
  });

  it('challenge_page: a Cloudflare-like challenge in front of the site', async () => {
    mode = 'challenge';
    const report = await check({ url: proxyUrl });
    expect(report.problems).toEqual([
      expect.objectContaining({ code: 'challenge_page', message: expect.stringContaining('Cloudflare') }),
    ]);
  });

  it('redirected: the site redirects to https, and the fix names the https address', async () => {
    mode = 'redirect_https';
    const report = await check({ url: proxyUrl });
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'redirected',
        fix: `Register ${proxyUrl.replace('http:', 'https:')} instead, the address the site answers at.`,
      }),
    ]);
  });

  it('login_refused: a wrong password; an editor holding the role answers the same (no oracle)', async () => {
    resetThrottle();
    const wrong = await check({ password: 'not the password' });
    expect(wrong.problems).toEqual([
      expect.objectContaining({
        code: 'login_refused',
        fix: expect.stringContaining('Settings > Inkpress Connector'),
      }),
    ]);
    const tooPowerful = await check({
      login: env('WP_ROLE_EDITOR_LOGIN'),
      password: env('WP_ROLE_EDITOR_PASSWORD'),
    });
    expect(tooPowerful.problems).toEqual(wrong.problems);
    resetThrottle();
  });

  it("role_too_powerful: an administrator's application password, as WordPress tells it", async () => {
    const report = await check({ login: env('WP_ADMIN_LOGIN'), password: env('WP_ADMIN_APP_PASSWORD') });
    expect(report.connected).toBe(0);
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'role_too_powerful',
        message: expect.stringContaining('administrator'),
      }),
    ]);
    resetThrottle();
  });
});
