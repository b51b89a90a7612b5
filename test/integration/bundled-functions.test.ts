/**
 * The functions as Lambda runs them: each bundled by esbuild with the stack's settings and
 * aliases (htmlparser2's parser alone, no postcss, credentials from the environment only), then
 * loaded in a fresh `node` process with its environment and invoked with a sample event, against
 * the emulators and the fake OpenAI server. Every other integration test runs the handlers
 * unbundled.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createAccount } from '../../functions/core/accounts';
import type { ProvisionedResources } from '../../local/provision';
import { bundleBuilder, invokeBundle } from '../support/bundles';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, fakeModelEnv, startFakeOpenAi } from '../support/fake-openai-server';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { receive, sqsEventOf } from '../support/generation-queue';
import { multipartBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;
let site: FakeWordPress;
let outDir: string;
const bundled = bundleBuilder(() => outDir);

/** Invokes a bundled function in a fresh process, composed at init as in Lambda. */
async function invoke(
  functionName: string,
  event: APIGatewayProxyEvent,
  environment: NodeJS.ProcessEnv = process.env,
  file?: string,
): Promise<{ result: APIGatewayProxyResult; output: string }> {
  return invokeBundle(file ?? (await bundled(functionName)), functionName, event, environment);
}

/** Delivers an SQS event to the bundled generation worker in a fresh process. */
async function invokeWorker(event: SQSEvent): Promise<SQSBatchResponse> {
  const file = await bundled('GenerationWorker');
  return (await invokeBundle<SQSBatchResponse>(file, 'GenerationWorker', event, process.env)).result;
}

/** An article create with a JSON body (given as text, so that it can be malformed on purpose). */
function jsonCreate(accountId: string, body: string) {
  return apiEvent('create-article', { accountId, contentType: 'application/json', body });
}

async function newAccount(credits: number) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Bundled', credits },
  );
  return account.accountId;
}

beforeAll(async () => {
  [fakeOpenAi, site] = await Promise.all([startFakeOpenAi(), startFakeWordPress()]);
  resources = await provisionTestResources({
    ...fakeModelEnv(fakeOpenAi),
  });
  outDir = mkdtempSync(path.join(tmpdir(), 'inkpress-bundles-'));
});

afterAll(async () => {
  await Promise.all([fakeOpenAi.close(), site.close()]);
  rmSync(outDir, { recursive: true, force: true });
});

describe('bundled functions', () => {
  it('ShowAccount reads the account from DynamoDB with the credentials of the environment', async () => {
    const accountId = await newAccount(25);
    const { result } = await invoke('ShowAccount', apiEvent('show-account', { accountId }));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).data).toMatchObject({ credits: 25 });
  });

  it('CreateArticle and the GenerationWorker: the keyword decoded by the bundled parser, the article charged, generated through openai and sanitised', async () => {
    const accountId = await newAccount(100);
    const created = await invoke(
      'CreateArticle',
      jsonCreate(
        accountId,
        JSON.stringify({
          keyword: 'caf&eacute; <b>au</b> lait',
          h2_count: 2,
          ai_model: 'gpt-3.5-turbo',
          language: 'en',
          need_bold: 1,
        }),
      ),
    );
    expect(created.result.statusCode).toBe(202);
    const articleUuid: string = JSON.parse(created.result.body).article_uuid;
    const queued = await deps.articleStore().get(accountId, articleUuid);
    expect(queued).toMatchObject({ keyword: 'café au lait', state: 'queued' });
    expect(await deps.accountStore().get(accountId)).toMatchObject({
      credits: 100 - (queued?.creditsCharged ?? 0),
    });

    const messages = await receive(resources.queueUrl, 10, 1);
    expect(messages).toHaveLength(1);
    const worked = await invokeWorker(sqsEventOf(messages));
    expect(worked).toEqual({ batchItemFailures: [] });
    const generated = await deps.articleStore().get(accountId, articleUuid);
    expect(generated?.state).toBe('generated');
    expect(generated?.content?.match(/<h2>/g)).toHaveLength(2);
    expect(generated?.content).toContain('<strong>');
    expect(fakeOpenAi.requests.length).toBeGreaterThan(0);
  });

  it('CreateArticle loads its lazy modules from beside its bundle: a multipart body, an entity, a field named twice', async () => {
    const accountId = await newAccount(100);
    const form = multipartBody({
      keyword: 'fish &amp; chips',
      h2_count: '2',
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
    });
    const created = await invoke(
      'CreateArticle',
      apiEvent('create-article', { accountId, contentType: form.contentType, body: form.body }),
    );
    expect(created.result.statusCode).toBe(202);
    const articleUuid: string = JSON.parse(created.result.body).article_uuid;
    expect(await deps.articleStore().get(accountId, articleUuid)).toMatchObject({ keyword: 'fish & chips' });
    await receive(resources.queueUrl, 10, 1);

    const repeated = await invoke(
      'CreateArticle',
      jsonCreate(
        accountId,
        '{"keyword":"one","keyword":"two","h2_count":2,"ai_model":"gpt-3.5-turbo","language":"en"}',
      ),
    );
    expect(repeated.result.statusCode).toBe(422);
    expect(JSON.parse(repeated.result.body).errors).toHaveProperty('keyword');
  });

  it('CreateArticle answers a plain JSON request with no lazy module beside its bundle (none is loaded at init)', async () => {
    const accountId = await newAccount(100);
    const alone = path.join(outDir, 'CreateArticleAlone');
    mkdirSync(alone);
    copyFileSync(await bundled('CreateArticle'), path.join(alone, 'index.js'));
    const created = await invoke(
      'CreateArticle',
      jsonCreate(
        accountId,
        JSON.stringify({
          keyword: 'plain keyword',
          h2_count: 2,
          ai_model: 'gpt-3.5-turbo',
          language: 'en',
        }),
      ),
      process.env,
      path.join(alone, 'index.js'),
    );
    expect(created.result.statusCode).toBe(202);
    await receive(resources.queueUrl, 10, 1);
  });

  it('RefreshCategories answers with no SQS client in its bundle, and loads it from beside the bundle to record a health event', async () => {
    const accountId = await newAccount(10);
    const json = (body: unknown) => ({
      accountId,
      contentType: 'application/json',
      body: JSON.stringify(body),
    });
    const webhook = await invoke(
      'CreateWebhook',
      apiEvent('create-webhook', json({ url: `${site.url}/hooks`, events: 'website.unhealthy' })),
    );
    expect(webhook.result.statusCode).toBe(201);
    const website = await invoke(
      'CreateWebsite',
      apiEvent(
        'create-website',
        json({ url: site.url, login: 'inkpress', password: 'correct horse battery' }),
      ),
    );
    expect(website.result.statusCode).toBe(201);
    const refresh = apiEvent('refresh-categories', {
      accountId,
      pathParameters: { website_uuid: JSON.parse(website.result.body).data.uuid },
    });
    const refreshBundle = await bundled('RefreshCategories');
    expect(readFileSync(refreshBundle, 'utf8')).toContain('require("@aws-sdk/client-sqs")');

    // A healthy site: no event, and the bundle alone (no lazy module beside it) answers.
    const alone = path.join(outDir, 'RefreshCategoriesAlone');
    mkdirSync(alone);
    copyFileSync(refreshBundle, path.join(alone, 'index.js'));
    expect(
      (await invoke('RefreshCategories', refresh, process.env, path.join(alone, 'index.js'))).result
        .statusCode,
    ).toBe(200);

    await site.stop();
    try {
      expect((await invoke('RefreshCategories', refresh)).result.statusCode).toBe(502);
    } finally {
      await site.start();
    }
    const [message] = await receive(resources.webhookQueueUrl, 10, 1);
    expect(JSON.parse(message?.Body ?? '{}')).toMatchObject({ accountId });
  });

  it('the GenerationWorker generates with no SQS client beside its bundle, and loads it from beside the bundle for a retry backoff', async () => {
    const accountId = await newAccount(100);
    const createOne = async () => {
      const body = { keyword: 'lazy queue', h2_count: 1, ai_model: 'gpt-3.5-turbo', language: 'en' };
      const created = await invoke('CreateArticle', jsonCreate(accountId, JSON.stringify(body)));
      expect(created.result.statusCode).toBe(202);
      return JSON.parse(created.result.body).article_uuid as string;
    };
    const workerBundle = await bundled('GenerationWorker');
    expect(readFileSync(workerBundle, 'utf8')).toContain('require("@aws-sdk/client-sqs")');

    // An account without webhooks, a model that answers: the bundle and its article tools alone
    // (the HTML parser and markdown-it).
    const generatedUuid = await createOne();
    const alone = path.join(outDir, 'GenerationWorkerAlone');
    mkdirSync(path.join(alone, 'node_modules'), { recursive: true });
    copyFileSync(workerBundle, path.join(alone, 'index.js'));
    for (const lazyModule of ['htmlparser2', 'markdown-it']) {
      cpSync(
        path.join(path.dirname(workerBundle), 'node_modules', lazyModule),
        path.join(alone, 'node_modules', lazyModule),
        { recursive: true },
      );
    }
    const generated = await invokeBundle<SQSBatchResponse>(
      path.join(alone, 'index.js'),
      'GenerationWorker',
      sqsEventOf(await receive(resources.queueUrl, 10, 1)),
      process.env,
    );
    expect(generated.result).toEqual({ batchItemFailures: [] });
    expect(await deps.articleStore().get(accountId, generatedUuid)).toMatchObject({ state: 'generated' });

    // A failed attempt: the worker sets the delivery's backoff (30 s) through the lazy SQS client,
    // so the message received with a 2 s visibility is still hidden after 3 s.
    await createOne();
    fakeOpenAi.behaviour = { latencyMs: 0, failWithStatus: 500 };
    try {
      const messages = await receive(resources.queueUrl, 10, 1, 2);
      expect(messages).toHaveLength(1);
      const failed = await invokeWorker(sqsEventOf(messages));
      expect(failed.batchItemFailures).toEqual([{ itemIdentifier: messages[0]?.MessageId }]);
    } finally {
      fakeOpenAi.behaviour = { latencyMs: 0 };
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await receive(resources.queueUrl, 10, 0)).toHaveLength(0);
  });

  it('asks only the environment for credentials: without them a request fails and says so', async () => {
    const accountId = await newAccount(1);
    const { AWS_ACCESS_KEY_ID: _key, AWS_SECRET_ACCESS_KEY: _secret, ...withoutCredentials } = process.env;
    const { result, output } = await invoke(
      'ShowAccount',
      apiEvent('show-account', { accountId }),
      // No shared config file to fall back on, as in Lambda.
      {
        ...withoutCredentials,
        HOME: outDir,
        AWS_CONFIG_FILE: path.join(outDir, 'none'),
        AWS_SHARED_CREDENTIALS_FILE: path.join(outDir, 'none'),
      },
    );
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body)).toMatchObject({ message: 'Server error.' });
    expect(output).toMatch(/environment variable credentials/i);
  });
});
