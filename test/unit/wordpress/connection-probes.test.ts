/**
 * The connection doctor's probes (connection-probes.ts) against local servers: what each kind of
 * answer, or the lack of one, is named as.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WordPressConnectionProbes } from '../../../functions/adapters/wordpress/connection-probes';
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
      obstacle: { kind: 'too_large', limitBytes: 1024 * 1024 },
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
