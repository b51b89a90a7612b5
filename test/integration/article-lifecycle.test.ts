/**
 * The article lifecycle under faults, through the real worker, sweeper and handlers against
 * DynamoDB Local, moto SQS and the fake OpenAI server: leases against duplicate deliveries,
 * retry backoff on the delivery, workers that die, long queues that are never "stuck",
 * final states with refunds exactly once, and the client's retry and cancel.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { DynamoGenerationLifecycle } from '../../functions/adapters/dynamodb/article-generation';
import { OpenAiModelProvider } from '../../functions/adapters/model/openai-article-model';
import { SqsGenerationQueue } from '../../functions/adapters/sqs/sqs-generation-queue';
import { handler as cancelArticleHandler } from '../../functions/api/cancel-article';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as retryArticleHandler } from '../../functions/api/retry-article';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { createAccount, MAX_CREDITS } from '../../functions/core/accounts';
import { retryArticle } from '../../functions/core/articles/article-actions';
import {
  generationRetryDelaySeconds,
  LEASE_MS,
  MAX_GENERATION_ATTEMPTS,
  WORST_CASE_FAILURE_MS,
} from '../../functions/core/articles/lifecycle-policy';
import { resendUnfinishedGenerations } from '../../functions/core/articles/resend-unfinished';
import { recoverStalledGenerations } from '../../functions/core/articles/sweep-articles';
import { ConflictError } from '../../functions/core/errors';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, fakeModelEnv, startFakeOpenAi } from '../support/fake-openai-server';
import { drainQueue, lambdaContext, receive, sqsEventOf } from '../support/generation-queue';
import { multipartBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;
/** The worker's first retry delay here (deployed: `generationRetryDelaySeconds(1)`, 30 s). */
const RETRY_SECONDS = 5;

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
  resources = await provisionTestResources({
    ...fakeModelEnv(fakeOpenAi),
    PUBLIC_BASE_URL: '',
    INKPRESS_GENERATION_RETRY_SECONDS: String(RETRY_SECONDS),
  });
});

afterAll(async () => {
  await fakeOpenAi.close();
});

beforeEach(async () => {
  fakeOpenAi.behaviour = { latencyMs: 0 };
  fakeOpenAi.requests.length = 0;
  fakeOpenAi.abandoned = 0;
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

const json = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const PRICE = 4; // gpt-3.5-turbo, 3 H2s, no bold
const fields = { keyword: 'trail running shoes', h2_count: '3', ai_model: 'gpt-3.5-turbo', language: 'en' };

async function newAccount(credits: number) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Lifecycle', credits, dailyLimit: 1000 },
  );
  return account.accountId;
}

async function create(accountId: string): Promise<string> {
  const response = await createArticleHandler(
    apiEvent('create-article', { accountId, ...multipartBody(fields) }),
  );
  expect(response.statusCode).toBe(202);
  return json(response).article_uuid;
}

const event = (name: string, accountId: string, uuid: string) =>
  apiEvent(name, { accountId, pathParameters: { article_uuid: uuid } });
const show = async (accountId: string, uuid: string) =>
  json(await showArticleHandler(event('show-article', accountId, uuid)));
const cancel = (accountId: string, uuid: string) =>
  cancelArticleHandler(event('cancel-article', accountId, uuid));
const retry = (accountId: string, uuid: string) =>
  retryArticleHandler(event('retry-article', accountId, uuid));
const credits = async (accountId: string) => (await deps.accountStore().get(accountId))?.credits;
const stored = async (accountId: string, uuid: string) => {
  const article = await deps.articleStore().get(accountId, uuid);
  if (!article) throw new Error('article missing');
  return article;
};
const sweepAt = (offsetMs: number) =>
  recoverStalledGenerations({ ...deps.sweepDeps(), clock: () => new Date(Date.now() + offsetMs) });
/** Model calls made for one article (its keyword is in every prompt; each test uses a new account). */
const modelCalls = () => fakeOpenAi.requests.length;

describe('leases', () => {
  it('generates once when ten deliveries of the same article arrive at the same moment', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    const [message] = await receive(resources.queueUrl);
    if (!message) throw new Error('no message');
    fakeOpenAi.behaviour = { latencyMs: 100 };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => worker(sqsEventOf([message]), lambdaContext)),
    );
    // One delivery generated it; the nine duplicates were deleted (none kept to come back).
    expect(responses.filter((response) => response.batchItemFailures.length === 0)).toHaveLength(10);
    expect((await show(accountId, uuid)).status).toBe('generated');
    // One article's worth of model calls: an outline, then one call per part (intro, 3 H2s, end, meta).
    expect(modelCalls()).toBe(1 + 3 + 2 + 1);
    expect(await credits(accountId)).toBe(100 - PRICE);
    expect((await stored(accountId, uuid)).generationAttempts).toBe(1);
  });

  it('re-sends an article whose worker died once its lease expired, and generates it once', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    await receive(resources.queueUrl); // the delivery the dead worker took
    const now = new Date();
    const leased = await deps
      .articleStore()
      .takeLease(
        { accountId, articleUuid: uuid },
        'dead-worker',
        now.toISOString(),
        new Date(now.getTime() + LEASE_MS).toISOString(),
        MAX_GENERATION_ATTEMPTS,
      );
    expect(leased.kind).toBe('leased');
    // While the lease runs, the sweeper leaves it alone, and a new delivery is a duplicate.
    expect(await sweepAt(LEASE_MS / 2)).toMatchObject({ resent: 0, failed: 0 });
    // The dead worker's lease runs out (as time passes)...
    await deps
      .articleStore()
      .renewLease(await stored(accountId, uuid), 'dead-worker', new Date(Date.now() - 1).toISOString());
    // ...so the next sweep sends the article again, and it is generated once.
    expect(await sweepAt(0)).toMatchObject({ resent: 1, failed: 0 });
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);
    expect((await show(accountId, uuid)).status).toBe('generated');
    expect(await credits(accountId)).toBe(100 - PRICE);
  });
});

describe('lease ids', () => {
  const result = () => ({
    title: 'Written',
    content: '<h2>One</h2><p>Text</p>',
    totalWords: 2,
    providerModel: 'gpt-4o-mini',
    promptTokens: 1,
    completionTokens: 1,
    generatedAt: new Date().toISOString(),
  });
  const take = (accountId: string, uuid: string, leaseId: string, at: Date) =>
    deps
      .articleStore()
      .takeLease(
        { accountId, articleUuid: uuid },
        leaseId,
        at.toISOString(),
        new Date(at.getTime() + LEASE_MS).toISOString(),
        MAX_GENERATION_ATTEMPTS,
      );

  it('only the lease that holds the article completes, fails, renews or releases it', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    const now = new Date();
    expect((await take(accountId, uuid, 'expired', now)).kind).toBe('leased');
    // Its lease ran out and another delivery took the article.
    expect((await take(accountId, uuid, 'holder', new Date(now.getTime() + LEASE_MS + 1))).kind).toBe(
      'leased',
    );
    const article = await stored(accountId, uuid);
    const later = new Date(Date.now() + LEASE_MS).toISOString();

    expect(await deps.articleStore().completeGeneration(article, 'expired', result())).toBe(false);
    expect(await deps.articleStore().failGeneration(article, 'late', later, 'expired')).toBe(false);
    expect(await deps.articleStore().renewLease(article, 'expired', later)).toBe(false);
    await deps.articleStore().releaseLease(article, 'expired', 'late', later);
    // Without a lease id, only used-up attempts fail it.
    expect(await deps.articleStore().failGeneration(article, 'stalled', later)).toBe(false);
    expect(await stored(accountId, uuid)).toMatchObject({ state: 'queued', leaseOwner: 'holder' });
    expect(await credits(accountId)).toBe(100 - PRICE);

    expect(await deps.articleStore().completeGeneration(article, 'holder', result())).toBe(true);
    expect((await stored(accountId, uuid)).state).toBe('generated');
  });

  it('a completion keeps trying while other completions of the account keep taking the next place in its list', async () => {
    // Each completion takes the account's next number (generatedCount), read then written on that
    // condition: with a hundred completing at once, the last loses that race round after round. A
    // completion that gave up would throw, and its article would wait out its lease and be written
    // again by the model. Here another completion takes the number right after each of the first
    // 13 reads (twelve attempts was the limit).
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    expect((await take(accountId, uuid, 'holder', new Date())).kind).toBe('leased');
    const article = await stored(accountId, uuid);
    const dynamodb = dynamoDocumentClient();
    let taken = 0;
    const racing = {
      send: async (command: Parameters<typeof dynamodb.send>[0]) => {
        const answer = await dynamodb.send(command);
        const input = command.input as { TableName?: string; ProjectionExpression?: string };
        const readsNextNumber =
          command instanceof GetCommand &&
          input.TableName === resources.tableNames.accounts &&
          input.ProjectionExpression === 'generatedCount';
        if (readsNextNumber && taken < 13) {
          taken++;
          await dynamodb.send(
            new UpdateCommand({
              TableName: resources.tableNames.accounts,
              Key: { accountId },
              UpdateExpression: 'ADD generatedCount :one',
              ExpressionAttributeValues: { ':one': 1 },
            }),
          );
        }
        return answer;
      },
    } as unknown as typeof dynamodb;
    const lifecycle = new DynamoGenerationLifecycle(racing, resources.tableNames);

    expect(await lifecycle.completeGeneration(article, 'holder', result())).toBe(true);
    expect(taken).toBe(13);
    expect((await stored(accountId, uuid)).generatedSeq).toBe(14);
    expect((await deps.accountStore().get(accountId))?.generatedCount).toBe(14);
  });

  it('a duplicate that loses the race with the holder’s retry neither fails nor refunds the article', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    const [message] = await receive(resources.queueUrl);
    if (!message) throw new Error('no message');
    await take(accountId, uuid, 'holder', new Date());
    // Between the duplicate's refused take and its read, the holder gives the lease back for a retry.
    const client = dynamoDocumentClient();
    let armed = true;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (armed && ['GetCommand', 'GetItemCommand'].includes(String(context.commandName))) {
          armed = false;
          await deps
            .articleStore()
            .releaseLease({ accountId, articleUuid: uuid }, 'holder', 'model down', new Date().toISOString());
        }
        return next(args);
      },
      { step: 'initialize', name: 'holderRetriesMeanwhile' },
    );
    try {
      const response = await worker(sqsEventOf([message]), lambdaContext);
      expect(response.batchItemFailures).toEqual([]);
    } finally {
      client.middlewareStack.remove('holderRetriesMeanwhile');
    }
    expect(armed).toBe(false);
    expect(await stored(accountId, uuid)).toMatchObject({ state: 'queued', generationAttempts: 1 });
    expect(await credits(accountId)).toBe(100 - PRICE);
  });
});

describe('the model call of an aborted attempt', () => {
  it('is cancelled on the network by the attempt’s signal', async () => {
    fakeOpenAi.behaviour = { latencyMs: 20_000 };
    const provider = new OpenAiModelProvider({
      apiKey: async () => 'sk-test',
      baseURL: fakeOpenAi.baseURL,
      timeoutMs: 60_000,
      maxRetries: 2,
      providerModels: { 'gpt-3.5-turbo': 'gpt-4o-mini', 'gpt-4': 'gpt-4o' },
    });
    const attempt = new AbortController();
    const model = await provider.modelFor('gpt-3.5-turbo', attempt.signal);
    const started = Date.now();
    const call = model.outline({
      keyword: 'trail running',
      language: 'en',
      languageName: 'English',
      h2Count: 2,
      needBold: false,
      focusKeyword: 'trail running',
      faqCount: 0,
      autoTags: false,
    });
    call.catch(() => undefined);
    // Once the request reached the server (it answers after 20 s), the attempt is aborted.
    while (fakeOpenAi.requests.length === 0 && Date.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const aborted = Date.now();
    attempt.abort(new Error('budget spent'));

    await expect(call).rejects.toThrow();
    expect(Date.now() - aborted).toBeLessThan(5_000);
    // The request was abandoned at the server, and the client did not retry it.
    const deadline = Date.now() + 5_000;
    while (fakeOpenAi.abandoned === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(fakeOpenAi.requests).toHaveLength(1);
    expect(fakeOpenAi.abandoned).toBe(1);
  });
});

describe('a restart that lost the queue', () => {
  it('sends every queued article again, ends the dead process leases, and generates each once', async () => {
    const accountId = await newAccount(100);
    const waiting = await create(accountId);
    const inProgress = await create(accountId);
    const now = new Date();
    await deps
      .articleStore()
      .takeLease(
        { accountId, articleUuid: inProgress },
        'killed-process',
        now.toISOString(),
        new Date(now.getTime() + LEASE_MS).toISOString(),
        MAX_GENERATION_ATTEMPTS,
      );
    // The queue is gone with the process.
    await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
    const { resent } = await resendUnfinishedGenerations(deps.resendUnfinishedDeps(), {
      leasesAreDead: true,
    });
    expect(resent).toBeGreaterThanOrEqual(2);
    await drainQueue(resources.queueUrl, worker);
    for (const uuid of [waiting, inProgress]) expect((await show(accountId, uuid)).status).toBe('generated');
    expect(await credits(accountId)).toBe(100 - 2 * PRICE);
  });
});

describe('retries and final states', () => {
  it('asks a failed delivery back after the retry backoff (30 s deployed), not after the visibility timeout, and keeps the article in progress', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    fakeOpenAi.behaviour = { latencyMs: 0, failWithStatus: 500 };
    const [message] = await receive(resources.queueUrl);
    if (!message) throw new Error('no message');
    const before = Date.now();
    const response = await worker(sqsEventOf([message]), lambdaContext);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: message.MessageId }]);
    // Not visible now (the queue's own timeout is an hour; the worker set its backoff)...
    expect(await receive(resources.queueUrl)).toHaveLength(0);
    const article = await stored(accountId, uuid);
    expect(article).toMatchObject({ state: 'queued', generationAttempts: 1 });
    expect(article.leaseOwner).toBeUndefined();
    expect(article.lastError).toContain('500');
    expect(generationRetryDelaySeconds(1)).toBe(30);
    // ...and back after the backoff (moto honours the visibility the worker set): the first
    // retry delay of the worker's configuration, shortened here from the deployed 30 s.
    let again = await receive(resources.queueUrl, 1, 20);
    if (again.length === 0) again = await receive(resources.queueUrl, 1, 20);
    expect(again).toHaveLength(1);
    expect(Date.now() - before).toBeGreaterThanOrEqual(RETRY_SECONDS * 1000 - 1_000);
    expect((await show(accountId, uuid)).status).toBe('in_progress');
  }, 60_000);

  it('fails an article whose model keeps failing after 4 attempts, refunds once, in under 30 minutes worst case', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    fakeOpenAi.behaviour = { latencyMs: 0, failWithStatus: 503 };
    await drainQueue(resources.queueUrl, worker);
    const record = await show(accountId, uuid);
    expect(record.status).toBe('error');
    expect(await credits(accountId)).toBe(100);
    expect((await stored(accountId, uuid)).generationAttempts).toBe(MAX_GENERATION_ATTEMPTS);
    expect(modelCalls()).toBe(MAX_GENERATION_ATTEMPTS); // each attempt stops at its outline call
    expect(WORST_CASE_FAILURE_MS).toBeLessThan(30 * 60_000);
  });

  it('fails with one refund an article whose last attempt died with its worker', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    await receive(resources.queueUrl);
    const store = deps.articleStore();
    for (let attempt = 1; attempt <= MAX_GENERATION_ATTEMPTS; attempt++) {
      const now = new Date(Date.now() - LEASE_MS * 2);
      const lease = await store.takeLease(
        { accountId, articleUuid: uuid },
        `worker-${attempt}`,
        now.toISOString(),
        new Date(now.getTime() + 1).toISOString(),
        MAX_GENERATION_ATTEMPTS,
      );
      expect(lease.kind).toBe('leased');
    }
    const [first, second] = await Promise.all([sweepAt(60_000), sweepAt(60_000)]);
    // The counts cover the whole sweep index, which this file's tests share; the article's own
    // outcome is its status and its balance: refunded once (twice would be 100 + PRICE).
    expect((first?.failed ?? 0) + (second?.failed ?? 0)).toBeGreaterThanOrEqual(1);
    expect((await show(accountId, uuid)).status).toBe('error');
    expect(await credits(accountId)).toBe(100);
  });

  it('never counts an article waiting in a long queue as stuck', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    // (The sweep index is shared by this file's tests: look at this article only.)
    for (const hours of [1, 6, 24, 72]) await sweepAt(hours * 3600_000);
    const article = await stored(accountId, uuid);
    expect(article.state).toBe('queued');
    expect(article.resends).toBeUndefined();
    expect(await credits(accountId)).toBe(100 - PRICE);
    const messages = await receive(resources.queueUrl);
    expect(messages.filter((message) => message.Body?.includes(uuid))).toHaveLength(1);
  });

  it('sends the message of an article whose create could not send it', async () => {
    const accountId = await newAccount(100);
    // Every queue the handlers composed is one of these.
    const outage = jest
      .spyOn(SqsGenerationQueue.prototype, 'enqueue')
      .mockRejectedValue(new Error('Simulated SQS outage'));
    let uuid: string;
    try {
      uuid = await create(accountId);
    } finally {
      outage.mockRestore();
    }
    expect(await receive(resources.queueUrl)).toHaveLength(0);
    expect(await sweepAt(0)).toMatchObject({ resent: 1 });
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);
    expect((await show(accountId, uuid)).status).toBe('generated');
  });
});

describe('retry and cancel', () => {
  it('cancels an article that has not started, refunding exactly once under concurrent cancels', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    expect(await credits(accountId)).toBe(100 - PRICE);
    const responses = await Promise.all(Array.from({ length: 5 }, () => cancel(accountId, uuid)));
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 409, 409, 409, 409]);
    const cancelled = json(
      responses.find((response) => response.statusCode === 200) as APIGatewayProxyResult,
    );
    expect(cancelled.status).toBe('cancelled');
    expect(await credits(accountId)).toBe(100);
    // The message still in the queue finds nothing to do.
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);
    expect(modelCalls()).toBe(0);
    expect((await show(accountId, uuid)).status).toBe('cancelled');
    expect(await credits(accountId)).toBe(100);
    const again = await cancel(accountId, uuid);
    expect(again.statusCode).toBe(409);
    expect(json(again).message).toMatch(/was cancelled/);
  });

  it('cancels an article waiting for credits (nothing to refund) and refuses one being generated', async () => {
    const accountId = await newAccount(0);
    const waiting = await create(accountId);
    expect((await show(accountId, waiting)).status).toBe('not_enough_credits');
    expect((await cancel(accountId, waiting)).statusCode).toBe(200);
    expect(await credits(accountId)).toBe(0);

    const other = await newAccount(100);
    const started = await create(other);
    const now = new Date();
    await deps
      .articleStore()
      .takeLease(
        { accountId: other, articleUuid: started },
        'busy-worker',
        now.toISOString(),
        new Date(now.getTime() + LEASE_MS).toISOString(),
        MAX_GENERATION_ATTEMPTS,
      );
    const refused = await cancel(other, started);
    expect(refused.statusCode).toBe(409);
    expect(json(refused).message).toMatch(/being generated/);
    expect(await credits(other)).toBe(100 - PRICE);
    expect((await cancel(other, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
  });

  it('retries a generation in error: charges again, generates, and refuses to retry what is generated', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    fakeOpenAi.behaviour = { latencyMs: 0, failWithStatus: 500 };
    await drainQueue(resources.queueUrl, worker);
    expect((await show(accountId, uuid)).status).toBe('error');
    expect(await credits(accountId)).toBe(100);

    fakeOpenAi.behaviour = { latencyMs: 0 };
    const retried = await retry(accountId, uuid);
    expect(retried.statusCode).toBe(202);
    expect(json(retried).status).toBe('in_progress');
    expect(await credits(accountId)).toBe(100 - PRICE);
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);
    expect((await show(accountId, uuid)).status).toBe('generated');
    expect(await credits(accountId)).toBe(100 - PRICE);

    const refused = await retry(accountId, uuid);
    expect(refused.statusCode).toBe(409);
    expect(json(refused).message).toMatch(/can be retried/);
  });
  it('takes one of ten retries of a generation in error sent at the same instant: one charge, the others 409', async () => {
    const accountId = await newAccount(100);
    const uuid = await create(accountId);
    fakeOpenAi.behaviour = { latencyMs: 0, failWithStatus: 500 };
    await drainQueue(resources.queueUrl, worker);
    expect((await show(accountId, uuid)).status).toBe('error');

    // The same clock reading for all (same millisecond): each must still be a request of its own.
    const instant = new Date();
    const retryDeps = {
      ...deps.readArticleDeps(),
      accounts: deps.accountStore(),
      publications: deps.publicationStore(),
      queue: deps.generationQueue(),
      clock: () => instant,
    };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => retryArticle(retryDeps, accountId, uuid)),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes.filter((each) => each.status === 'rejected')) {
      expect(outcome.reason).toBeInstanceOf(ConflictError);
    }
    expect(await credits(accountId)).toBe(100 - PRICE);
    fakeOpenAi.behaviour = { latencyMs: 0 };
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);
    expect((await show(accountId, uuid)).status).toBe('generated');
  });

  it('cancels a retried generation that waits for credits: attempts reset, nothing to refund', async () => {
    const accountId = await newAccount(PRICE);
    const uuid = await create(accountId);
    fakeOpenAi.behaviour = { latencyMs: 0, failWithStatus: 500 };
    await drainQueue(resources.queueUrl, worker);
    expect((await show(accountId, uuid)).status).toBe('error');
    // Spent elsewhere meanwhile: the retry has to wait for credits.
    await deps.accountStore().addCredits(accountId, -1, MAX_CREDITS);

    const retried = await retry(accountId, uuid);
    expect(retried.statusCode).toBe(202);
    expect(json(retried).data.not_enough_credits).toBe(1);
    expect((await stored(accountId, uuid)).generationAttempts).toBe(0);

    const cancelled = await cancel(accountId, uuid);
    expect(cancelled.statusCode).toBe(200);
    expect(json(cancelled).status).toBe('cancelled');
    expect(await credits(accountId)).toBe(PRICE - 1);
  });
});
