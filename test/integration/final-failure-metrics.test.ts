/**
 * The worker reports an article that fails for good as the FinalGenerationFailures metric
 * (one EMF line inside Lambda), once, whatever the deliveries before it; a generated article
 * reports nothing. Real DynamoDB Local, moto SQS and a fake OpenAI server.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { createAccount } from '../../functions/core/accounts';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, fakeModelEnv, startFakeOpenAi } from '../support/fake-openai-server';
import { drainQueue } from '../support/generation-queue';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;
let written: string[];

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
  resources = await provisionTestResources({
    ...fakeModelEnv(fakeOpenAi),
    PUBLIC_BASE_URL: '',
  });
});

afterAll(async () => {
  await fakeOpenAi.close();
});

beforeEach(async () => {
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
  process.env.AWS_LAMBDA_FUNCTION_NAME = 'Inkpress-GenerationWorker';
  written = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
});

afterEach(() => {
  jest.restoreAllMocks();
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
});

/** The values of `metric` in the EMF lines written so far. */
function emitted(metric: string): unknown[] {
  return written
    .join('')
    .split('\n')
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => metric in line)
    .map((line) => line[metric]);
}

async function queueOneArticle(): Promise<{ accountId: string; articleUuid: string }> {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Metrics', credits: 100 },
  );
  const response = await createArticleHandler(
    apiEvent('create-article', {
      accountId: account.accountId,
      body: JSON.stringify({ keyword: 'metrics', h2_count: 1, ai_model: 'gpt-3.5-turbo', language: 'en' }),
      contentType: 'application/json',
    }),
  );
  expect(response.statusCode).toBe(202);
  return { accountId: account.accountId, articleUuid: JSON.parse(response.body).article_uuid };
}

it('counts one final generation failure when the model fails on every delivery', async () => {
  const { accountId, articleUuid } = await queueOneArticle();
  fakeOpenAi.behaviour = { latencyMs: 0, failWithStatus: 500 };
  await drainQueue(resources.queueUrl, worker);
  expect((await deps.articleStore().get(accountId, articleUuid))?.state).toBe('error');
  expect(emitted('FinalGenerationFailures')).toEqual([1]);
});

it('counts nothing for an article that is generated', async () => {
  const { accountId, articleUuid } = await queueOneArticle();
  fakeOpenAi.behaviour = { latencyMs: 0 };
  await drainQueue(resources.queueUrl, worker);
  expect((await deps.articleStore().get(accountId, articleUuid))?.state).toBe('generated');
  expect(emitted('FinalGenerationFailures')).toEqual([]);
});
