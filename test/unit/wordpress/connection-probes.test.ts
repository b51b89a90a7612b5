/**
 * The connection doctor's probes (connection-probes.ts) against local servers: what each kind of
 * answer, or the lack of one, is named as.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { WordPressConnectionProbes } from '../../../functions/adapters/wordpress/connection-probes';
import {
  guardedRequest,
  OutboundError,
  type OutboundPolicy,
  type OutboundRequest,
  type OutboundResponse,
} from '../../../functions/adapters/wordpress/guarded-http';
import { systemResolver } from '../../../functions/adapters/wordpress/ssrf-guard';
import { DEFAULT_SITE_LIMITS } from '../../../functions/adapters/wordpress/wordpress-client';
import { type LocalHttpServer, startLocalHttpServer } from '../../support/local-http-server';

let server: LocalHttpServer;
let answer: (request: IncomingMessage, response: ServerResponse) => void;

beforeAll(async () => {
  server = await startLocalHttpServer((request, response) => answer(request, response));
});

afterAll(() => server.close());

const probes = new WordPressConnectionProbes({
  ...DEFAULT_SITE_LIMITS,
  allowPrivate: true,
  resolve: systemResolver,
});

describe('an answer larger than the probe reads', () => {
  it('a 2 MB page is too_large, not unreachable', async () => {
    answer = (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/html' }).end('x'.repeat(2 * 1024 * 1024));
    await expect(probes.probePlugin(server.url, 5_000)).resolves.toEqual({
      kind: 'obstacle',
      obstacle: { kind: 'too_large', limitBytes: 1024 * 1024, route: 'inkpress/v1/probe' },
    });
  });

  it('an endless stream is too_large', async () => {
    answer = (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const write = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', write);
      };
      write();
    };
    await expect(probes.probePlugin(server.url, 5_000)).resolves.toMatchObject({
      obstacle: { kind: 'too_large' },
    });
  });
});

describe('https to a port that does not speak TLS', () => {
  let tcp: TcpServer;
  afterEach(async () => {
    await new Promise((resolve) => tcp.close(resolve));
  });

  it.each([
    ['closes the connection on the TLS hello', (socket: import('node:net').Socket) => socket.end()],
    [
      'resets the connection on the TLS hello',
      (socket: import('node:net').Socket) => socket.resetAndDestroy(),
    ],
  ])('a server that %s is tls, not unreachable', async (_case, onHello) => {
    tcp = createTcpServer((socket) => socket.once('data', () => onHello(socket)));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(tcp.address() as AddressInfo).port}`;
    await expect(probes.probePlugin(url, 5_000)).resolves.toEqual({
      kind: 'obstacle',
      obstacle: {
        kind: 'tls',
        detail: expect.stringMatching(/during the TLS handshake.*\((ECONNRESET|EPIPE)\)$/),
      },
    });
  });
});

describe('a connection reset over https', () => {
  /** https.request made to emit the socket's events in `steps`, then `error`. */
  function resetAfter(steps: ('connect' | 'secureConnect')[]) {
    return jest.spyOn(https, 'request').mockImplementation((() => {
      const request = Object.assign(new EventEmitter(), {
        destroy: () => request,
        end: () => {
          const socket = Object.assign(new EventEmitter(), { connecting: true });
          request.emit('socket', socket);
          for (const step of steps) socket.emit(step);
          request.emit('error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
        },
      });
      return request;
    }) as unknown as typeof https.request);
  }
  const policy = { ...DEFAULT_SITE_LIMITS, allowPrivate: true, resolve: systemResolver };
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof OutboundError ? error.failure : error),
    );

  afterEach(() => jest.restoreAllMocks());

  it('during the handshake is tls', async () => {
    resetAfter(['connect']);
    const request = { method: 'GET' as const, url: 'https://127.0.0.1:9/', headers: {} };
    expect(await failureOf(guardedRequest(request, policy))).toBe('tls');
  });

  it('after the handshake is a network failure, not tls', async () => {
    resetAfter(['connect', 'secureConnect']);
    const request = { method: 'GET' as const, url: 'https://127.0.0.1:9/', headers: {} };
    expect(await failureOf(guardedRequest(request, policy))).toBe('network');
  });
});

describe('Cloudflare', () => {
  const CLOUDFLARE = { Server: 'cloudflare', 'CF-RAY': '8f1c2a9e8b3d4c5e-CDG' };
  /** The bot-detection script Cloudflare adds to a site's own pages. */
  const JSD =
    "<script>(function(){var a=document.createElement('script');a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';document.head.appendChild(a);})();</script>";
  const wordpressPage = (title: string) =>
    `<!DOCTYPE html><html><head><title>${title}</title><link rel="stylesheet" href="/wp-content/themes/x/style.css"></head><body>${title}${JSD}</body></html>`;

  it.each([
    [200, 'My blog'],
    [404, 'Page not found - My blog'],
  ])(
    'a WordPress page (%i) with its bot-detection script is a page at a REST address, not a challenge',
    async (status, title) => {
      answer = (_request, response) =>
        response
          .writeHead(status, { 'Content-Type': 'text/html; charset=UTF-8', ...CLOUDFLARE })
          .end(wordpressPage(title));
      await expect(probes.probePlugin(server.url, 5_000)).resolves.toMatchObject({
        obstacle: { kind: 'rest_blocked', status },
      });
    },
  );

  it.each([
    [
      'its "Just a moment..." page',
      {},
      '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body></body></html>',
    ],
    ['its _cf_chl_opt script', {}, '<html><script>window._cf_chl_opt={cvId: "3"};</script></html>'],
    ['cf-mitigated: challenge', { 'cf-mitigated': 'challenge' }, '<html><body>One moment</body></html>'],
  ])('a challenge is recognised by %s', async (_mark, headers, page) => {
    answer = (_request, response) =>
      response.writeHead(403, { 'Content-Type': 'text/html', ...CLOUDFLARE, ...headers }).end(page);
    await expect(probes.probePlugin(server.url, 5_000)).resolves.toEqual({
      kind: 'obstacle',
      obstacle: { kind: 'challenge', status: 403, vendor: 'Cloudflare' },
    });
  });

  it('a challenge on a 200 (a managed challenge answered with success) is recognised by its header', async () => {
    answer = (_request, response) =>
      response
        .writeHead(200, { 'Content-Type': 'text/html', ...CLOUDFLARE, 'cf-mitigated': 'challenge' })
        .end('<html><body>Verifying</body></html>');
    await expect(probes.probePlugin(server.url, 5_000)).resolves.toMatchObject({
      obstacle: { kind: 'challenge', vendor: 'Cloudflare' },
    });
  });
});

describe('PHP notices printed around the JSON (display_errors on)', () => {
  const notice =
    '<br />\n<b>Deprecated</b>:  Creation of dynamic property in <b>/var/www/wp-content/plugins/x.php</b> on line <b>12</b><br />\n';

  it('the probe reads the plugin behind them, as the login does', async () => {
    answer = (_request, response) =>
      response
        .writeHead(200, { 'Content-Type': 'application/json; charset=UTF-8' })
        .end(
          `${notice}${JSON.stringify({ plugin_version: '1.5.0', auth_headers: { authorization: true, x_inkpress_authorization: true } })}`,
        );
    await expect(probes.probePlugin(server.url, 5_000)).resolves.toEqual({
      kind: 'plugin',
      version: '1.5.0',
      headers: { authorization: true, custom: true },
    });
  });
});

describe('a redirect to an address the URL policy refuses (deployed mode)', () => {
  /** Private addresses refused, except the local test server's. */
  const deployed = new WordPressConnectionProbes({
    ...DEFAULT_SITE_LIMITS,
    allowPrivate: false,
    isAllowedAddress: (address) => address === '127.0.0.1',
    resolve: systemResolver,
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a private/],
    ['https://10.0.0.1/', /10\.0\.0\.1 is a private/],
  ])('%s is named as refused', async (location, why) => {
    answer = (_request, response) => response.writeHead(302, { Location: location }).end();
    await expect(deployed.probePlugin(server.url, 5_000)).resolves.toEqual({
      kind: 'obstacle',
      obstacle: { kind: 'redirected', status: 302, location, refused: expect.stringMatching(why) },
    });
  });

  it('an address it may call is not', async () => {
    answer = (_request, response) => response.writeHead(301, { Location: `${server.url}/blog/` }).end();
    const probe = await deployed.probePlugin(server.url, 5_000);
    expect(probe).toEqual({
      kind: 'obstacle',
      obstacle: { kind: 'redirected', status: 301, location: `${server.url}/blog/` },
    });
  });
});

describe('the probe spends at most the time it is given, all its calls together', () => {
  /**
   * A site whose every answer takes `delayMs` (on a clock the test moves): a call given less
   * fails at its timeout, as guarded-http's does. Records the time each call was given.
   */
  function slowSite(
    delayMs: number,
    answerOf: (request: OutboundRequest) => { status: number; body: unknown },
  ) {
    let now = 0;
    const given: number[] = [];
    const request = async (sent: OutboundRequest, policy: OutboundPolicy): Promise<OutboundResponse> => {
      given.push(policy.totalTimeoutMs);
      if (delayMs > policy.totalTimeoutMs) {
        now += policy.totalTimeoutMs;
        throw new OutboundError('timeout', 'No complete answer from the site in time', true);
      }
      now += delayMs;
      const { status, body } = answerOf(sent);
      return {
        status,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(body)),
        url: sent.url,
      };
    };
    const slowProbes = new WordPressConnectionProbes(
      { ...DEFAULT_SITE_LIMITS, allowPrivate: true, resolve: systemResolver },
      { request, now: () => now },
    );
    return { probes: slowProbes, given, spent: () => now };
  }

  it('a plugin without the probe route: the namespace call gets what is left', async () => {
    const site = slowSite(7_500, (sent) =>
      sent.url.endsWith('/probe')
        ? { status: 404, body: { code: 'rest_no_route' } }
        : { status: 200, body: { namespace: 'inkpress/v1' } },
    );
    const probe = await site.probes.probePlugin('https://blog.example.com', 8_000);
    expect(probe).toMatchObject({ kind: 'obstacle', obstacle: { kind: 'timeout' } });
    expect(site.given).toEqual([8_000, 500]);
    expect(site.spent()).toBeLessThanOrEqual(8_000);
  });

  it('Authorization stripped: the fallback header call gets what is left', async () => {
    const site = slowSite(3_000, () => ({
      status: 200,
      body: {
        plugin_version: '1.5.0',
        auth_headers: { authorization: false, x_inkpress_authorization: true },
      },
    }));
    await site.probes.probePlugin('https://blog.example.com', 8_000);
    expect(site.given).toEqual([8_000, 5_000]);
    expect(site.spent()).toBeLessThanOrEqual(8_000);
  });
});
