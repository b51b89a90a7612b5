/**
 * A webhook receiver on 127.0.0.1: records every request per path and answers each with the next
 * status of that path's plan (200 once the plan is used up).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface WebhookReceiver {
  readonly url: string;
  received: ReceivedWebhook[];
  /** Statuses the next requests to `path` get, in order. */
  plan(path: string, statuses: number[]): void;
  /** Requests to `path` (of one event type, when given). */
  requestsTo(path: string, type?: string): ReceivedWebhook[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const plans = new Map<string, number[]>();
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://receiver').pathname;
      received.push({ path, headers: request.headers, body, receivedAt: Date.now() });
      const status = plans.get(path)?.shift() ?? 200;
      response.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    plan: (path, statuses) => plans.set(path, [...statuses]),
    requestsTo: (path, type) =>
      received.filter(
        (request) => request.path === path && (type === undefined || JSON.parse(request.body).type === type),
      ),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
