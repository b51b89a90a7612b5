/**
 * Re-sending the generation messages of a queue that lost them, against DynamoDB Local and
 * moto: every queued article of every account once (past one page of the index), nothing else.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createAccount } from '../../functions/core/accounts';
import { createArticle } from '../../functions/core/articles/create-article';
import { resendUnfinishedGenerations } from '../../functions/core/articles/resend-unfinished';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { drainQueue, receive } from '../support/generation-queue';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;

beforeAll(async () => {
  resources = await provisionTestResources({ OPENAI_API_KEY: '', INKPRESS_LOCAL_MODE: 'true' });
});

const input = {
  keyword: 'restart',
  h2_count: 1,
  ai_model: 'gpt-3.5-turbo' as const,
  language: 'en',
  need_bold: false,
  draft: false,
};

async function newAccount(credits: number) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Resend', credits, dailyLimit: 1000 },
  );
  return account.accountId;
}

/** Creates articles as the API does, but whose messages never reach the queue. */
async function createUnsent(accountId: string, count: number): Promise<{ uuid: string; state: string }[]> {
  const lostQueue = { enqueue: async () => undefined };
  const created = [];
  for (let n = 0; n < count; n++) {
    const article = await createArticle({ ...deps.createArticleDeps(), queue: lostQueue }, accountId, input);
    created.push({ uuid: article.articleUuid, state: article.state });
  }
  return created;
}

async function receiveAll(queueUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const messages = await receive(queueUrl, 10, 0);
    if (messages.length === 0) return bodies;
    bodies.push(...messages.map((message) => message.Body ?? ''));
  }
}

it('sends one message for each queued article of every account, and none for the others', async () => {
  // More queued articles than one page of the index, over several accounts (created in parallel).
  const accounts = await Promise.all([1, 2, 3, 4, 5].map(() => newAccount(10_000)));
  const queued = (
    await Promise.all(
      accounts.map(async (accountId) =>
        (await createUnsent(accountId, 21)).map((article) => ({ accountId, articleUuid: article.uuid })),
      ),
    )
  ).flat();
  // One article is generated already: not sent.
  const generated = queued.pop();
  if (generated) await deps.generationQueue().enqueue(generated);
  expect(await drainQueue(resources.queueUrl, worker)).toBe(1);
  // The second article of a poor account waits for credits: not queued, not sent either.
  const poor = await newAccount(2);
  const [queuedPoor, waiting] = await createUnsent(poor, 2);
  expect(waiting?.state).toBe('not_enough_credits');
  queued.push({ accountId: poor, articleUuid: queuedPoor?.uuid ?? '' });

  expect(await resendUnfinishedGenerations(deps.resendUnfinishedDeps(), { leasesAreDead: false })).toEqual({
    resent: queued.length,
    failed: 0,
  });

  const bodies = await receiveAll(resources.queueUrl);
  expect(queued.length).toBeGreaterThan(100);
  expect(bodies.sort()).toEqual(queued.map((message) => JSON.stringify(message)).sort());
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
}, 60_000);
