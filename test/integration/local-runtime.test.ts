/**
 * The local runtime behind `npm start`, started in-process on a free port with a temporary data
 * folder, attached to the global set-up's emulators under its own prefix
 * (test/support/attached-runtime.ts): API Gateway emulation, authorizer, queue poller, schedule,
 * and the missing prerequisites of `npm start`. What concerns the emulators it starts itself
 * (their addresses, the data folder's lock, persistence across a restart, no child process left
 * behind) is in local-supervision-emulators.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { MAX_BODY_BYTES } from '../../functions/api/http/form-body';
import { errorBodies } from '../../functions/api/http/responses';
import * as accounts from '../../functions/core/accounts';
import { AUTHENTICATION_HINTS } from '../../functions/core/authentication-hints';
import { generationWorker, type RouteDefinition } from '../../functions/routes';
import { runtimeSettings } from '../../functions/shared/runtime-settings';
import { createApiServer } from '../../local/api-server';
import { loadHandler } from '../../local/local-config';
import type { LocalRuntime } from '../../local/local-runtime';
import { invokeWorker, startQueuePoller } from '../../local/queue-poller';
import { startScheduler } from '../../local/scheduler';
import { startInTemporaryFolder } from '../support/attached-runtime';
import * as deps from '../support/deps';
import { received as sweeperEvents } from '../support/local-fixtures/recording-sweeper';
import { received as workerEvents } from '../support/local-fixtures/recording-worker';
import * as slowWorker from '../support/local-fixtures/slow-worker';
import { bearer, NPM_START_ARGS, processesUsing } from '../support/npm-start';

const quiet = () => undefined;
let dataDir: string;
let runtime: LocalRuntime;

beforeAll(async () => {
  ({ dataDir, runtime } = await startInTemporaryFolder());
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const call = (pathname: string, init: RequestInit = {}) => fetch(`${runtime.baseUrl}${pathname}`, init);

async function json(response: Response): Promise<unknown> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  return response.json();
}

async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('the API on 127.0.0.1', () => {
  it('serves /v1/languages with the printed token', async () => {
    expect(runtime.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(runtime.token).toMatch(/^ink_/);
    const response = await call('/v1/languages', { headers: bearer(runtime.token) });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const body = (await json(response)) as { data: { code: string }[] };
    expect(body.data).toEqual(expect.arrayContaining([{ code: 'en', name: 'English' }]));
  });

  it.each([
    ['no token', {}, AUTHENTICATION_HINTS.missing],
    ['a wrong token', bearer('ink_not-a-real-token'), AUTHENTICATION_HINTS.unknownToken],
    ['another scheme', { Authorization: 'Basic dXNlcjpwYXNz' }, AUTHENTICATION_HINTS.otherScheme],
    ['a token without the Bearer prefix', { Authorization: 'ink_abc' }, AUTHENTICATION_HINTS.noScheme],
  ])('answers 401 JSON to %s, saying what is wrong', async (_label, headers, hint) => {
    const response = await call('/v1/languages', { headers });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(await json(response)).toEqual({ message: 'Unauthenticated.', hint });
  });

  it('answers 404 JSON to an unknown path, with or without a token', async () => {
    for (const headers of [{}, bearer(runtime.token)]) {
      const response = await call('/v1/nope', { headers });
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual(errorBodies.notFound);
    }
  });

  it('answers 405 JSON to a known path with a wrong method', async () => {
    const response = await call('/v1/languages', { method: 'DELETE', headers: bearer(runtime.token) });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(await json(response)).toEqual(errorBodies.methodNotAllowed);
  });

  it('answers 413 JSON to a body over the limit', async () => {
    const response = await call('/v1/articles/create', {
      method: 'POST',
      headers: { ...bearer(runtime.token), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `keyword=${'x'.repeat(MAX_BODY_BYTES)}`,
    });
    expect(response.status).toBe(413);
    expect(await json(response)).toEqual(errorBodies.payloadTooLarge);
  });

  /** The status of a GET carrying a body twice the limit (fetch cannot send one). */
  const getWithLargeBody = (pathname: string) =>
    new Promise<number>((resolve, reject) => {
      const body = 'x'.repeat(MAX_BODY_BYTES * 2);
      const headers = { ...bearer(runtime.token), 'Content-Length': String(body.length) };
      const request = http.request(
        new URL(pathname, runtime.baseUrl),
        { method: 'GET', headers },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end(body);
    });

  it('ignores a body over the limit on a route that takes none, as deployed (no 413)', async () => {
    expect(await getWithLargeBody('/v1/account')).toBe(200);
    const cancel = await call(`/v1/articles/${randomUUID()}/cancel`, {
      method: 'POST',
      headers: { ...bearer(runtime.token), 'Content-Type': 'application/json' },
      body: 'x'.repeat(MAX_BODY_BYTES * 2),
    });
    expect(cancel.status).toBe(404);
    // The queue listing takes a body on POST only: its GET ignores one too.
    expect(await getWithLargeBody('/v1/articles/queue')).toBe(200);
  });

  it('answers 400 JSON to a Host that is not a host name (links are built from it), and serves host names and addresses', async () => {
    const statusFor = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = http.request(
          new URL('/v1/languages', runtime.baseUrl),
          { headers: { ...bearer(runtime.token), Host: host } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end();
      });
    expect(await statusFor('evil.example"><x')).toBe(400);
    expect(await statusFor('a b')).toBe(400);
    for (const host of ['localhost:3000', 'api.example.com', 'my_api:3000', '127.0.0.1', '[::1]:3000']) {
      expect(await statusFor(host)).toBe(200);
    }
  });

  it('refuses a query parameter given twice, and a queue page given in both query and body, with 422 on the name', async () => {
    const twice = await call('/v1/articles/list?page=1&page=2', { headers: bearer(runtime.token) });
    expect(twice.status).toBe(422);
    expect(await json(twice)).toMatchObject({
      errors: { page: ['The page must be one whole number, given once.'] },
    });
    const usage = await call('/v1/account/usage?from=2026-11-01&from=2026-11-02', {
      headers: bearer(runtime.token),
    });
    expect(await json(usage)).toMatchObject({
      errors: { from: ['The from must be one date (YYYY-MM-DD), given once.'] },
    });
    // A parameter no route reads may repeat (a cache-buster, say).
    expect((await call('/v1/articles/list?_=1&_=2', { headers: bearer(runtime.token) })).status).toBe(200);
    const both = await call('/v1/articles/queue?page=1', {
      method: 'POST',
      headers: { ...bearer(runtime.token), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'page=2',
    });
    expect(both.status).toBe(422);
    expect(await json(both)).toMatchObject({
      errors: { page: ['The page may be given in the query string or the body, not both.'] },
    });
    expect((await call('/v1/articles/queue?page=1', { headers: bearer(runtime.token) })).status).toBe(200);
    // An empty form field is no value (an HTML form sends `page=`).
    const emptyBodyPage = await call('/v1/articles/queue?page=1', {
      method: 'POST',
      headers: { ...bearer(runtime.token), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'page=',
    });
    expect(emptyBodyPage.status).toBe(200);
    expect(
      (
        await call('/v1/articles/queue', {
          method: 'POST',
          headers: { ...bearer(runtime.token), 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'page=1',
        })
      ).status,
    ).toBe(200);
  });

  it('answers CONNECT with the 400 JSON (and a request id) of a request HTTP cannot serve, not a dropped connection', async () => {
    const answer = await new Promise<{ status: number; body: string; requestId: unknown }>(
      (resolve, reject) => {
        const request = http.request(new URL('/', runtime.baseUrl), {
          method: 'CONNECT',
          path: '127.0.0.1:1',
        });
        request.on('connect', (response, socket, head) => {
          let body = head.toString();
          socket.on('data', (chunk) => (body += chunk));
          socket.on('end', () =>
            resolve({ status: response.statusCode ?? 0, body, requestId: response.headers['x-request-id'] }),
          );
        });
        request.on('error', reject);
        request.end();
      },
    );
    expect(answer).toEqual({
      status: 400,
      body: JSON.stringify({ message: 'Bad request.' }),
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it.each([
    ['no Host (HTTP/1.1)', 'GET /v1/languages HTTP/1.1\r\nConnection: close\r\n\r\n', 400, 'Bad request.'],
    [
      'an Expect other than 100-continue',
      'POST /v1/articles/queue HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 200-ok\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
      417,
      'Expectation failed: only 100-continue is supported.',
    ],
  ])(
    'answers a request with %s with a JSON error and a request id, as every answer',
    async (_case, raw, status, message) => {
      const { port } = new URL(runtime.baseUrl);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(raw));
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      const [head = '', body] = answer.split('\r\n\r\n');
      expect(head.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`);
      expect(head).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
      expect(head).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
      expect(head).toMatch(/\r\nconnection: close\r\n/i);
      // The body, without the chunk sizes of its transfer coding.
      expect(JSON.parse(/\{.*\}/.exec(body ?? '')?.[0] ?? '')).toEqual({ message });
    },
  );

  it('caches allowed authorizer decisions per token like API Gateway', async () => {
    const store = { accounts: deps.accountStore(), tokens: deps.tokenStore() };
    const { token: used } = await accounts.createAccount(store, { name: 'Cached', credits: 0 });
    const { token: unused } = await accounts.createAccount(store, { name: 'Never used', credits: 0 });
    expect((await call('/v1/languages', { headers: bearer(used) })).status).toBe(200);
    await accounts.revokeToken(store, used);
    await accounts.revokeToken(store, unused);
    expect((await call('/v1/languages', { headers: bearer(used) })).status).toBe(200);
    expect((await call('/v1/languages', { headers: bearer(unused) })).status).toBe(401);
  });
});

describe('API Gateway proxy events', () => {
  const fixtureRoutes: RouteDefinition[] = [
    {
      name: 'Echo',
      methods: ['GET', 'POST'],
      path: '/v1/echo/{thing_id}',
      entry: 'test/support/local-fixtures/echo-handler.ts',
      takesBody: true,
      access: { tables: {} },
    },
  ];
  let baseUrl: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const server = createApiServer({ routes: fixtureRoutes, authorizerCacheSeconds: 0, log: quiet });
    baseUrl = `http://127.0.0.1:${await server.listen(0)}`;
    close = () => server.close();
  });

  afterAll(() => close());

  it('logs one line per request with its path but never its query string (it may carry a token)', async () => {
    const lines: string[] = [];
    const logging = createApiServer({
      routes: fixtureRoutes,
      authorizerCacheSeconds: 0,
      logRequests: true,
      log: (line) => lines.push(line),
    });
    const url = `http://127.0.0.1:${await logging.listen(0)}`;
    try {
      await fetch(`${url}/v1/echo/abc?access_token=ink_secret_in_the_query`, {
        headers: bearer(runtime.token),
      });
      await new Promise((resolve) => setTimeout(resolve, 50)); // 'finish' follows the answer
    } finally {
      await logging.close();
    }
    expect(lines).toEqual([expect.stringMatching(/^GET \/v1\/echo\/abc -> 200 \(\d+ ms\)$/)]);
  });

  it('passes a multipart body base64-encoded with the request, path and authorizer context', async () => {
    const form = new FormData();
    form.append('keyword', 'café crème');
    const response = await fetch(`${baseUrl}/v1/echo/abc%20def?x=1&x=2&y=3`, {
      method: 'POST',
      headers: bearer(runtime.token),
      body: form,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-echo')).toBe('yes');
    expect(response.headers.get('set-cookie')).toBe('a=1, b=2');
    const { event, functionName, remainingMs } = (await response.json()) as {
      event: APIGatewayProxyEvent;
      functionName: string;
      remainingMs: number;
    };
    expect(functionName).toBe('inkpress-local-Echo');
    // The route's own timeout, as deployed (10 s: it calls no customer site).
    expect(remainingMs).toBeGreaterThan(9_000);
    expect(remainingMs).toBeLessThanOrEqual(10_000);
    expect(event).toMatchObject({
      resource: '/v1/echo/{thing_id}',
      path: '/v1/echo/abc%20def',
      httpMethod: 'POST',
      pathParameters: { thing_id: 'abc def' },
      queryStringParameters: { x: '2', y: '3' },
      multiValueQueryStringParameters: { x: ['1', '2'], y: ['3'] },
      isBase64Encoded: true,
      stageVariables: null,
    });
    expect(event.headers['X-Forwarded-Proto']).toBe('http');
    expect(event.headers.Host).toBe(new URL(baseUrl).host);
    expect(event.multiValueHeaders['X-Forwarded-Proto']).toEqual(['http']);
    const body = Buffer.from(event.body ?? '', 'base64').toString('utf8');
    expect(body).toContain('name="keyword"');
    expect(body).toContain('café crème');
    expect(event.requestContext).toMatchObject({
      resourcePath: '/v1/echo/{thing_id}',
      httpMethod: 'POST',
      path: '/v1/echo/abc%20def',
      requestId: response.headers.get('x-amzn-requestid'),
      authorizer: { accountId: runtime.accountId, principalId: runtime.accountId },
      identity: { sourceIp: '127.0.0.1' },
    });
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('passes JSON and urlencoded bodies as text, and no body as null', async () => {
    const posted = await fetch(`${baseUrl}/v1/echo/1`, {
      method: 'POST',
      headers: { ...bearer(runtime.token), 'Content-Type': 'application/json' },
      body: '{"page":"2"}',
    });
    const { event } = (await posted.json()) as { event: APIGatewayProxyEvent };
    expect(event).toMatchObject({
      body: '{"page":"2"}',
      isBase64Encoded: false,
      queryStringParameters: null,
    });
    const got = await fetch(`${baseUrl}/v1/echo/1`, { headers: bearer(runtime.token) });
    expect(((await got.json()) as { event: APIGatewayProxyEvent }).event).toMatchObject({
      body: null,
      isBase64Encoded: false,
    });
  });

  it('answers a handler crash with the 500 JSON body and its request id', async () => {
    const response = await fetch(`${baseUrl}/v1/echo/1?crash=1`, { headers: bearer(runtime.token) });
    expect(response.status).toBe(500);
    expect(await json(response)).toEqual({
      ...errorBodies.serverError,
      request_id: response.headers.get('x-amzn-requestid'),
    });
  });
});

describe('the SQS event source', () => {
  it('deletes what succeeded, leaves failures for redelivery when their visibility ends, and lets moto move them to the DLQ', async () => {
    const sqs = new SQSClient({ endpoint: runtime.endpoints.moto });
    try {
      const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${runtime.prefix}-poller-test-dlq` }));
      const dlqArn = (
        await sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
        )
      ).Attributes?.QueueArn;
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({
          QueueName: `${runtime.prefix}-poller-test`,
          Attributes: {
            // The worker sets a failed delivery's backoff; this double does not, so the queue's own applies.
            VisibilityTimeout: '1',
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }),
          },
        }),
      );
      const queueUrl = QueueUrl as string;
      for (const body of [{ n: 1 }, { fail: true }, { n: 2 }]) {
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
      }
      const poller = startQueuePoller({
        sqs,
        queueUrl,
        worker: { name: 'RecordingWorker', entry: 'test/support/local-fixtures/recording-worker.ts' },
        log: quiet,
        batchSize: 10,
        waitTimeSeconds: 1,
      });
      const count = async (url: string) => {
        const { Attributes } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: url,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        return (
          Number(Attributes?.ApproximateNumberOfMessages) +
          Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
        );
      };
      expect(
        await eventually(
          () => count(dlq.QueueUrl as string),
          (n) => n === 1,
        ),
      ).toBe(1);
      await poller.stop();
      expect(await count(queueUrl)).toBe(0);

      const records = workerEvents.flatMap((event) => event.Records);
      const bodies = records.map((record) => record.body);
      expect(bodies.filter((body) => body === '{"n":1}')).toHaveLength(1);
      expect(bodies.filter((body) => body === '{"n":2}')).toHaveLength(1);
      const failed = records.filter((record) => record.body === '{"fail":true}');
      expect(failed.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
      expect(records[0]).toMatchObject({
        eventSource: 'aws:sqs',
        eventSourceARN: expect.stringMatching(new RegExp(`^arn:aws:sqs:.*:${runtime.prefix}-poller-test$`)),
        awsRegion: 'us-east-1',
        md5OfBody: createHash('md5')
          .update(records[0]?.body ?? '')
          .digest('hex'),
        receiptHandle: expect.any(String),
        messageAttributes: {},
      });
    } finally {
      sqs.destroy();
    }
  });

  it('runs workerMaxConcurrency invocations of one message at once, never two of the same body', async () => {
    const sqs = new SQSClient({ endpoint: runtime.endpoints.moto });
    try {
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({ QueueName: `${runtime.prefix}-poller-concurrency-test` }),
      );
      const queueUrl = QueueUrl as string;
      const bodies = [...Array.from({ length: 14 }, (_, n) => `{"n":${n}}`), '{"n":0}', '{"n":0}'];
      for (const body of bodies)
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
      const poller = startQueuePoller({
        sqs,
        queueUrl,
        worker: { name: 'SlowWorker', entry: 'test/support/local-fixtures/slow-worker.ts' },
        log: quiet,
        waitTimeSeconds: 1,
      });
      await eventually(
        async () => slowWorker.runs.length,
        (n) => n === bodies.length,
      );
      await poller.stop();

      expect(slowWorker.concurrency.max).toBe(runtimeSettings.workerMaxConcurrency);
      expect(slowWorker.runs.every((run) => run.records === runtimeSettings.workerBatchSize)).toBe(true);
      const sameArticle = slowWorker.runs.filter((run) => run.body === '{"n":0}');
      expect(sameArticle).toHaveLength(3);
      for (const [earlier, later] of sameArticle.slice(1).map((run, n) => [sameArticle[n], run])) {
        expect(later?.start).toBeGreaterThanOrEqual(earlier?.end ?? Number.POSITIVE_INFINITY);
      }
    } finally {
      sqs.destroy();
    }
  });

  it('runs messages of the same body at once when told to (the webhook queue: a retry is not held behind its batch)', async () => {
    const sqs = new SQSClient({ endpoint: runtime.endpoints.moto });
    try {
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({ QueueName: `${runtime.prefix}-poller-same-body-test` }),
      );
      const queueUrl = QueueUrl as string;
      slowWorker.runs.length = 0;
      for (let n = 0; n < 2; n++)
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"same":true}' }));
      const poller = startQueuePoller({
        sqs,
        queueUrl,
        worker: { name: 'SlowWorker', entry: 'test/support/local-fixtures/slow-worker.ts' },
        log: quiet,
        batchSize: 1,
        waitTimeSeconds: 1,
        oneAtATimePerBody: false,
      });
      await eventually(
        async () => slowWorker.runs.length,
        (n) => n === 2,
      );
      await poller.stop();
      const [first, second] = slowWorker.runs;
      expect(second?.start).toBeLessThan(first?.end ?? 0);
    } finally {
      sqs.destroy();
    }
  });

  it('keeps concurrent invocations of the real worker apart (each gets its own outcome)', async () => {
    const worker = loadHandler<Parameters<typeof invokeWorker>[0]>(generationWorker.entry);
    // Odd ones fail (DynamoDB rejects a key of 3000 characters), even ones find no article and succeed.
    const messages: Message[] = Array.from({ length: 10 }, (_, n) => ({
      MessageId: `m${n}`,
      ReceiptHandle: `r${n}`,
      Body: JSON.stringify({ accountId: n % 2 ? 'x'.repeat(3000) : randomUUID(), articleUuid: randomUUID() }),
      Attributes: { ApproximateReceiveCount: '1' },
    }));
    const outcomes = await Promise.all(
      messages.map((message) => invokeWorker(worker, [message], 'arn', quiet)),
    );
    expect(outcomes.map((outcome) => outcome.failed.map((message) => message.MessageId))).toEqual(
      messages.map((message, n) => (n % 2 ? [message.MessageId] : [])),
    );
  });

  it('fails the whole batch when the worker throws or names an unknown record', async () => {
    const messages: Message[] = [
      { MessageId: 'a', ReceiptHandle: 'ra', Body: '{}' },
      { MessageId: 'b', ReceiptHandle: 'rb', Body: '{}' },
    ];
    const thrown = await invokeWorker(
      async () => {
        throw new Error('boom');
      },
      messages,
      'arn',
      quiet,
    );
    expect(thrown).toEqual({ succeeded: [], failed: messages });
    const unknown = await invokeWorker(
      async () => ({ batchItemFailures: [{ itemIdentifier: 'zzz' }] }),
      messages,
      'arn',
      quiet,
    );
    expect(unknown.failed).toHaveLength(2);
    const partial = await invokeWorker(
      async () => ({ batchItemFailures: [{ itemIdentifier: 'b' }] }),
      messages,
      'arn',
      quiet,
    );
    expect(partial).toEqual({ succeeded: [messages[0]], failed: [messages[1]] });
    expect(await invokeWorker(async () => undefined, messages, 'arn', quiet)).toEqual({
      succeeded: messages,
      failed: [],
    });
  });
});

describe('the sweeper schedule', () => {
  it('invokes the sweeper with a ScheduledEvent', async () => {
    const scheduler = startScheduler({
      sweeper: { name: 'RecordingSweeper', entry: 'test/support/local-fixtures/recording-sweeper.ts' },
      log: quiet,
      intervalSeconds: 0,
      firstRunAfterMs: 10,
    });
    await eventually(
      async () => sweeperEvents.length,
      (n) => n > 0,
      5_000,
    );
    await scheduler.stop();
    expect(sweeperEvents[0]).toMatchObject({
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      detail: {},
      resources: [expect.stringMatching(/^arn:aws:events:/)],
    });
    expect(sweeperEvents[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe('missing prerequisites', () => {
  const startWithPath = (pathDirs: string[]) => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'inkpress-prereq-'));
    const result = spawnSync(process.execPath, NPM_START_ARGS, {
      cwd: path.resolve(__dirname, '..', '..'),
      // A machine with only those commands: no Python the global set-up resolved either.
      env: {
        ...process.env,
        PATH: pathDirs.join(':'),
        MOTO_PYTHON: undefined,
        INKPRESS_DATA_DIR: folder,
        PORT: '0',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const leftovers = processesUsing(folder);
    rmSync(folder, { recursive: true, force: true });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr, leftovers };
  };

  it('without Java: one line saying how to install it, exit code 1', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'inkpress-empty-path-'));
    const result = startWithPath([empty]);
    rmSync(empty, { recursive: true });
    expect(result).toMatchObject({ status: 1, stdout: '', leftovers: [] });
    expect(result.stderr).toMatch(/^Java 17\+ is required for DynamoDB Local: install it .*\n$/);
  }, 60_000);

  it('without moto: one line with the pip command, exit code 1, DynamoDB Local stopped again', () => {
    const javaOnly = mkdtempSync(path.join(os.tmpdir(), 'inkpress-java-only-'));
    const java = execFileSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).trim();
    symlinkSync(java, path.join(javaOnly, 'java'));
    const result = startWithPath([javaOnly]);
    rmSync(javaOnly, { recursive: true });
    expect(result).toMatchObject({ status: 1, stdout: '', leftovers: [] });
    expect(result.stderr).toBe(
      'moto_server is required for local SQS and KMS: install it with `pip install "moto[server]"` (Python 3.9+).\n',
    );
  }, 60_000);
});
