/**
 * `npm run bench`: speed and cost figures, measured (never asserted in tests).
 * 1. Generation wall time for h2_count 1, 5 and 10 through the real openai client against the
 *    fake model with a fixed per-call latency, as a ratio to one call's latency.
 * 2. An article with 5 client sources against one without: local pages on 127.0.0.1 answering
 *    after a fixed latency, fetched through the SSRF guard and extracted while the outline is
 *    written (issue 27 asks for at most 1.2x the wall time).
 * 3. An article with a featured image, 2 inline images and 5 internal links against one without
 *    (`enrichment.ts`; issue 26 asks for at most 1.1x the wall time).
 * 4. DynamoDB items read per article-list page at pages 1, 10 and 50 over 1,050 articles.
 * 5. One hot account: 200 concurrent creates, and a 500-item batch accepted (`hot-account.ts`).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import OpenAI from 'openai';
import { OpenAiArticleModel } from '../functions/adapters/model/openai-article-model';
import { GuardedPageFetcher } from '../functions/adapters/sources/page-fetcher';
import { systemResolver } from '../functions/adapters/wordpress/ssrf-guard';
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
import { startSourcePages } from '../test/support/source-pages';
import { enrichmentBench } from './enrichment';

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

const PAGE_LATENCY_MS = Number(process.env.BENCH_PAGE_LATENCY_MS ?? '300');
/**
 * The model's latency in the sources scenario: 1 s, still shorter than a real outline call; at
 * 200 ms the pages' extraction (15-50 ms of CPU each on a loaded 2-core machine) outlasts the
 * outline and shows (docs/decisions.md, "Sources").
 */
const SOURCES_MODEL_LATENCY_MS = Number(process.env.BENCH_SOURCES_MODEL_LATENCY_MS ?? '1000');

async function sourcesBench(): Promise<void> {
  const fake = await startFakeOpenAi({ latencyMs: SOURCES_MODEL_LATENCY_MS });
  const pages = await startSourcePages(PAGE_LATENCY_MS);
  const model = new OpenAiArticleModel(
    new OpenAI({ apiKey: 'bench', baseURL: fake.baseURL, maxRetries: 0 }),
    'bench-model',
  );
  const sources = { pages: new GuardedPageFetcher({ allowPrivate: true, resolve: systemResolver }) };
  const request = {
    keyword: 'sourdough bread',
    h2Count: 5,
    aiModel: 'gpt-3.5-turbo' as const,
    language: 'en',
    needBold: false,
    draft: false,
    faqCount: 3,
  };
  const urls = ['/starter', '/baking', '/flour', '/text', '/hostile'].map((path) => `${pages.url}${path}`);
  console.log(
    `\nSources (fake model ${SOURCES_MODEL_LATENCY_MS} ms per call, pages ${PAGE_LATENCY_MS} ms each, h2_count 5, FAQ 3, median of 3)`,
  );
  console.log('article          | wall ms | sources used | ratio');
  try {
    const median = async (run: () => Promise<unknown>) => {
      const times: number[] = [];
      let last: unknown;
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        last = await run();
        times.push(performance.now() - started);
      }
      return { wall: times.sort((a, b) => a - b)[1] ?? 0, last };
    };
    const without = await median(() => writeArticle(model, request, { sources }));
    const withSources = await median(() => writeArticle(model, { ...request, sources: urls }, { sources }));
    const used = (withSources.last as Awaited<ReturnType<typeof writeArticle>>).seo.sources?.filter(
      (s) => s.used,
    ).length;
    console.log(`no sources       | ${without.wall.toFixed(0).padStart(7)} | ${'0'.padStart(12)} | 1.00`);
    console.log(
      `5 client sources | ${withSources.wall.toFixed(0).padStart(7)} | ${String(used).padStart(12)} | ${(withSources.wall / without.wall).toFixed(2)} (goal <= 1.20)`,
    );
  } finally {
    await Promise.all([fake.close(), pages.close()]);
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
  const only = process.env.BENCH_ONLY;
  if (!only || only === 'generation') await generationBench();
  if (!only || only === 'sources') await sourcesBench();
  if (!only || only === 'enrichment') await enrichmentBench();
  if (!only || only === 'list') await listBench();
  // In its own process: the functions' SDK clients keep the endpoint of the first stack they met.
  if (!only || only === 'hot-account') {
    execFileSync(process.execPath, [...process.execArgv, path.join(__dirname, 'hot-account.ts')], {
      stdio: 'inherit',
      env: process.env,
    });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
