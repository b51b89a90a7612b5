/**
 * DynamoDB becomes unreachable in the middle of a generation attempt (the worker's and the
 * handlers' clients reach DynamoDB Local through a TCP relay the test cuts): the attempt can
 * neither complete nor give its lease back. Its delivery must come back only once that lease ran
 * out, and then generate the article; back earlier, it would find its own lease held, count as
 * a duplicate and be deleted, leaving the article to the sweeper.
 *
 * The worker runs with a 6 s lease and a 2 s first retry (its configuration shortens the deployed
 * 60 s and 30 s): the retry backoff alone would still bring the delivery back long before the
 * lease ran out, as the deployed 30 s would before the deployed 60 s.
 */
import { createServer, type Server, Socket } from 'node:net';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { createAccount } from '../../functions/core/accounts';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, fakeModelEnv, startFakeOpenAi } from '../support/fake-openai-server';
import { lambdaContext, receive, sqsEventOf } from '../support/generation-queue';
import { multipartBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

/** A TCP relay to DynamoDB Local that can be cut (open connections reset, new ones refused). */
interface Relay {
  endpoint: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

async function startRelay(target: URL): Promise<Relay> {
  const open = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) return client.destroy();
    const upstream = new Socket();
    upstream.connect(Number(target.port), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        open.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    cut: () => {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    restore: () => {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const LEASE_SECONDS = 6;
const LEASE_MS = LEASE_SECONDS * 1000;

let relay: Relay;
let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;

beforeAll(async () => {
  relay = await startRelay(new URL(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? ''));
  process.env.AWS_ENDPOINT_URL_DYNAMODB = relay.endpoint;
  fakeOpenAi = await startFakeOpenAi();
  resources = await provisionTestResources({
    ...fakeModelEnv(fakeOpenAi),
    PUBLIC_BASE_URL: '',
    INKPRESS_GENERATION_LEASE_SECONDS: String(LEASE_SECONDS),
    INKPRESS_GENERATION_RETRY_SECONDS: '2',
  });
});

afterAll(async () => {
  await fakeOpenAi.close();
  await relay.close();
});

it('an attempt cut off from DynamoDB gets its delivery back once its lease ran out, and that delivery generates the article', async () => {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Outage', credits: 100, dailyLimit: 1000 },
  );
  const { accountId } = account;
  const created = await createArticleHandler(
    apiEvent('create-article', {
      accountId,
      ...multipartBody({
        keyword: 'storage outage',
        h2_count: '2',
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
      }),
    }),
  );
  expect(created.statusCode).toBe(202);
  const uuid = JSON.parse(created.body).article_uuid as string;
  const charged = (await deps.accountStore().get(accountId))?.credits;
  const [message] = await receive(resources.queueUrl);
  if (!message) throw new Error('no message');

  // The attempt takes the lease, then DynamoDB goes away while the model writes.
  fakeOpenAi.behaviour = { latencyMs: 300 };
  const attempt = worker(sqsEventOf([message]), lambdaContext);
  while (fakeOpenAi.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  relay.cut();
  const failedAt = Date.now();
  expect((await attempt).batchItemFailures).toEqual([{ itemIdentifier: message.MessageId }]);
  relay.restore();

  // It could not complete, nor give its lease back.
  const held = await deps.articleStore().get(accountId, uuid);
  expect(held).toMatchObject({ state: 'queued', generationAttempts: 1 });
  expect(held?.leaseOwner).toBeDefined();
  const leaseEnd = Date.parse(held?.leaseExpiresAt ?? '');
  expect(leaseEnd).toBeLessThanOrEqual(failedAt + LEASE_MS);

  // The delivery comes back after the lease's end, not while it runs.
  let again: Awaited<ReturnType<typeof receive>> = [];
  while (again.length === 0 && Date.now() < failedAt + LEASE_MS + 30_000) {
    again = await receive(resources.queueUrl, 1, 20);
  }
  expect(again).toHaveLength(1);
  expect(Date.now()).toBeGreaterThan(leaseEnd);

  // ...and generates the article (a delivery back too early was deleted as a duplicate).
  fakeOpenAi.behaviour = { latencyMs: 0 };
  expect((await worker(sqsEventOf(again), lambdaContext)).batchItemFailures).toEqual([]);
  expect(await deps.articleStore().get(accountId, uuid)).toMatchObject({
    state: 'generated',
    generationAttempts: 2,
  });
  expect((await deps.accountStore().get(accountId))?.credits).toBe(charged);
}, 120_000);
