/**
 * `npm run bench`: speed and cost figures, measured (never asserted in tests).
 * 1. Generation wall time for h2_count 1, 5 and 10 through the real openai client against the
 *    fake model with a fixed per-call latency, as a ratio to one call's latency.
 * 2. DynamoDB items read per article-list page at pages 1, 10 and 50 over 1,050 articles.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import OpenAI from 'openai';
import { OpenAiArticleModel } from '../functions/adapters/model/openai-article-model';
import { createAccount } from '../functions/core/accounts';
import { listGeneratedArticles } from '../functions/core/articles/read-articles';
import { writeArticle } from '../functions/core/articles/write-article';
import { dynamoDocumentClient } from '../functions/shared/aws/dynamodb';
import { startDynamoDbLocal, startMotoServer } from '../local/emulators';
import { emulatorClientEnv } from '../local/local-config';
import { provision } from '../local/provision';
import { fixtureUuid, seedGeneratedArticles } from '../test/support/article-fixtures';
import * as deps from '../test/support/deps';
import { startFakeOpenAi } from '../test/support/fake-openai-server';
import { withReadLog } from '../test/support/read-log';

const LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? '200');

async function generationBench(): Promise<void> {
  const fake = await startFakeOpenAi({ latencyMs: LATENCY_MS });
  const model = new OpenAiArticleModel(
    new OpenAI({ apiKey: 'bench', baseURL: fake.baseURL, maxRetries: 0 }),
    'bench-model',
  );
  console.log(`\nGeneration wall time (fake model, ${LATENCY_MS} ms per call, real openai client)`);
  console.log('h2_count | model calls | wall ms | wall / one call | max calls in flight');
  try {
    for (const h2Count of [1, 5, 10]) {
      fake.requests.length = 0;
      fake.maxConcurrent = 0;
      const started = performance.now();
      await writeArticle(model, {
        keyword: 'bench keyword',
        h2Count,
        aiModel: 'gpt-3.5-turbo',
        language: 'en',
        needBold: true,
        draft: false,
      });
      const wall = performance.now() - started;
      console.log(
        `${String(h2Count).padStart(8)} | ${String(fake.requests.length).padStart(11)} | ${wall.toFixed(0).padStart(7)} | ${(wall / LATENCY_MS).toFixed(2).padStart(15)} | ${fake.maxConcurrent}`,
      );
    }
  } finally {
    await fake.close();
  }
}

async function listBench(): Promise<void> {
  const [dynamodb, moto] = await Promise.all([startDynamoDbLocal(), startMotoServer()]);
  try {
    Object.assign(process.env, emulatorClientEnv({ dynamodb: dynamodb.endpoint, moto: moto.endpoint }));
    const resources = await provision(
      { dynamodb: new DynamoDBClient({}), sqs: new SQSClient({}), kms: new KMSClient({}) },
      { prefix: 'bench' },
    );
    Object.assign(process.env, resources.env);
    const { account } = await createAccount(
      { accounts: deps.accountStore(), tokens: deps.tokenStore() },
      { name: 'Bench', credits: 0 },
    );
    const total = 1050;
    await seedGeneratedArticles(dynamoDocumentClient(), resources.tableNames, account.accountId, total);
    console.log(`\nArticle list reads per page (${total} generated articles, DynamoDB Local)`);
    console.log('page | DynamoDB calls            | items read | first uuid');
    for (const page of [1, 10, 50]) {
      const { result, log } = await withReadLog(dynamoDocumentClient(), () =>
        listGeneratedArticles(deps.readArticleDeps(), account.accountId, page),
      );
      const first =
        (result.items[0]?.data.uuid ?? '-') === fixtureUuid(total - (page - 1) * 20) ? 'ok' : 'WRONG';
      console.log(
        `${String(page).padStart(4)} | ${log.commands.join(' + ').padEnd(25)} | ${String(log.itemsRead).padStart(10)} | ${first}`,
      );
    }
  } finally {
    await Promise.all([dynamodb.stop(), moto.stop()]);
  }
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID ??= 'bench';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'bench';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  await generationBench();
  await listBench();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
