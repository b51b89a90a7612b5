/**
 * One webhook attempt against a receiver on 127.0.0.1: the status line decides (Standard
 * Webhooks), whatever body follows it; the request is signed so that the receiver can verify it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  SignedWebhookSender,
  webhookOutboundPolicy,
} from '../../../functions/adapters/webhooks/signed-webhook-sender';
import { systemResolver } from '../../../functions/adapters/wordpress/ssrf-guard';
import { type LocalHttpServer, startLocalHttpServer } from '../../support/local-http-server';

const SECRET = `whsec_${Buffer.from('a receiver secret of 32 bytes!!!').toString('base64')}`;

let server: LocalHttpServer;
let baseUrl: string;
let answer: (request: IncomingMessage, response: ServerResponse) => void;
const received: { headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = await startLocalHttpServer((request, response, body) => {
    received.push({ headers: request.headers, body });
    answer(request, response);
  });
  baseUrl = server.url;
});

afterAll(() => server.close());

beforeEach(() => {
  received.length = 0;
});

const sender = new SignedWebhookSender(
  webhookOutboundPolicy({ allowPrivate: true, resolve: systemResolver }),
);
const send = () =>
  sender.send({
    url: `${baseUrl}/hook`,
    secrets: [SECRET],
    webhookId: 'msg_1',
    timestamp: new Date(),
    payload: '{"type":"article.generated"}',
  });

describe('SignedWebhookSender', () => {
  it('signs the attempt so that the receiver verifies it with the secret', async () => {
    answer = (_request, response) => response.writeHead(204).end();
    expect(await send()).toEqual({ kind: 'answered', statusCode: 204 });
    const [attempt] = received;
    const headers = attempt?.headers ?? {};
    expect(() =>
      new Webhook(SECRET).verify(attempt?.body ?? '', {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      }),
    ).not.toThrow();
  });

  it('signs with every secret given, space-separated: the receiver verifies with either', async () => {
    const previous = `whsec_${Buffer.from('the secret before the rotation!!').toString('base64')}`;
    answer = (_request, response) => response.writeHead(204).end();
    await sender.send({
      url: `${baseUrl}/hook`,
      secrets: [SECRET, previous],
      webhookId: 'msg_rotated',
      timestamp: new Date(),
      payload: '{"type":"article.generated"}',
    });
    const [attempt] = received;
    const headers = attempt?.headers ?? {};
    expect(String(headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [SECRET, previous]) {
      expect(() =>
        new Webhook(secret).verify(attempt?.body ?? '', {
          'webhook-id': String(headers['webhook-id']),
          'webhook-timestamp': String(headers['webhook-timestamp']),
          'webhook-signature': String(headers['webhook-signature']),
        }),
      ).not.toThrow();
    }
  });

  it('counts a 2xx followed by a body over the size cap as answered (the body is not read)', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    answer = (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      for (let n = 0; n < 32; n++) response.write(chunk); // 2 MB, 8x the cap
      response.end();
    };
    expect(await send()).toEqual({ kind: 'answered', statusCode: 200 });
  });

  it('counts a 2xx whose body never ends as answered, without waiting for it', async () => {
    answer = (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.write('still writing');
    };
    const started = Date.now();
    expect(await send()).toEqual({ kind: 'answered', statusCode: 200 });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('passes on other statuses, and a redirect with its status, not followed', async () => {
    answer = (_request, response) => response.writeHead(500).end('no');
    expect(await send()).toEqual({ kind: 'answered', statusCode: 500 });
    answer = (_request, response) => response.writeHead(302, { Location: `${baseUrl}/moved` }).end();
    expect(await send()).toEqual({
      kind: 'answered',
      statusCode: 302,
      error: 'The receiver answered with a redirect, which is not followed.',
    });
    expect(received.map((request) => request.headers['webhook-id'])).toEqual(['msg_1', 'msg_1']);
  });

  it('says a receiver that answers something other than HTTP answered, not that it could not be reached', async () => {
    const raw = await startRawServer('SSH-2.0-OpenSSH_9.6\r\n');
    try {
      const result = await sender.send({
        url: raw.url,
        secrets: [SECRET],
        webhookId: 'msg_2',
        timestamp: new Date(),
        payload: '{}',
      });
      expect(result).toEqual({
        kind: 'failed',
        error: expect.stringMatching(/^The answer from 127\.0\.0\.1:\d+ is not valid HTTP \(HPE_[A-Z_]+\)$/),
      });
    } finally {
      await raw.close();
    }
  });
});

/** A TCP server that answers every connection with `text` and closes it. */
async function startRawServer(text: string) {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
