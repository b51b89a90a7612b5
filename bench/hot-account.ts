/**
 * One account under load, through the create handlers on DynamoDB Local and moto (`npm run bench`,
 * scenarios `hot-account` and `batch`; figures in docs/operations.md, never asserted in tests):
 *
 * - 200 single creates sent at once on one account: p50 / p99 / max of each request's time, the
 *   credits charged (exactly 200 prices, never below zero) and the articles stored;
 * - a 500-item batch (JSON) accepted: the time of each request, p50 of BENCH_BATCH_RUNS.
 *
 * The rate limit is set out of the way (the per-account limit would answer most of 200 requests
 * at once with 429, which is its job and not what is measured here). Each scenario also prints
 * the DynamoDB and SQS calls it made, by operation (docs/decisions.md, "Hot account").
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createArticle } from '../functions/api/create-article';
import { handler as createBatch } from '../functions/api/create-batch';
import { createAccount } from '../functions/core/accounts';
import { priceOf } from '../functions/core/pricing';
import { dynamoDbClient } from '../functions/shared/aws/dynamodb';
import { sqsClient } from '../functions/shared/aws/sqs';
import * as deps from '../test/support/deps';
import { apiEvent } from '../test/support/events';
import { startBenchStack } from './bench-stack';

const CONCURRENT = Number(process.env.BENCH_HOT_CREATES ?? '200');
const BATCH_ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? '500');
const BATCH_RUNS = Number(process.env.BENCH_BATCH_RUNS ?? '5');

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

async function newAccount(credits: number, dailyLimit: number): Promise<string> {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Hot account bench', credits, dailyLimit },
  );
  return account.accountId;
}

const item = (index: number) => ({
  keyword: `hot account topic ${index}`,
  h2_count: 2,
  ai_model: 'gpt-3.5-turbo',
  language: 'en',
});

/** Counts the calls of the shared DynamoDB and SQS clients by operation, from now until `take()`. */
function callCounter() {
  const counts = new Map<string, number>();
  const count =
    (service: string) =>
    // biome-ignore lint/suspicious/noExplicitAny: any command of the client's middleware stack
    (next: (args: any) => Promise<any>, context: { commandName?: string }) =>
    // biome-ignore lint/suspicious/noExplicitAny: any command of the client's middleware stack
    async (args: any) => {
      const name = `${service} ${String(context.commandName ?? '?').replace(/Command$/, '')}`;
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    };
  dynamoDbClient().middlewareStack.add(count('DynamoDB'), { step: 'initialize', name: 'benchCallCount' });
  sqsClient().middlewareStack.add(count('SQS'), { step: 'initialize', name: 'benchCallCount' });
  return {
    reset: () => counts.clear(),
    /** `n x Operation` per operation, most first, and the total. */
    summary: () => {
      const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
      const each = [...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => `${n} ${name}`);
      return `${total} calls: ${each.join(', ')}`;
    },
  };
}

export async function hotAccountBench(): Promise<void> {
  Object.assign(process.env, {
    INKPRESS_RATE_LIMIT_PER_SECOND: '1000000',
    INKPRESS_RATE_LIMIT_BURST: '1000000',
  });
  const stack = await startBenchStack({ prefix: 'hot-account', latencyMs: 0 });
  try {
    const price = priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 2, needBold: false });
    const send = (accountId: string, body: unknown, handler: typeof createArticle, name: string) =>
      handler(
        apiEvent(name, { accountId, body: JSON.stringify(body), contentType: 'application/json' }),
      ) as Promise<APIGatewayProxyResult>;

    // Warm both handlers (their first request builds schemas and clients).
    const warm = await newAccount(10_000, 10_000);
    await send(warm, item(0), createArticle, 'create-article');
    await send(warm, { items: [item(0)] }, createBatch, 'create-batch');

    // Credits for all but 10 of them: exactly CONCURRENT - 10 reserved, the rest deferred.
    const credits = (CONCURRENT - 10) * price;
    const accountId = await newAccount(credits, 100_000);
    const calls = callCounter();
    const times: number[] = [];
    const statuses = new Map<number, number>();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, index) => {
        const begin = performance.now();
        const response = await send(accountId, item(index), createArticle, 'create-article');
        times.push(performance.now() - begin);
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      }),
    );
    const wall = performance.now() - started;
    const createCalls = calls.summary();
    times.sort((a, b) => a - b);
    const left = (await deps.accountStore().get(accountId))?.credits;
    const queued = await deps.articleStore().listQueued(accountId, 1, 1);
    console.log(`\nHot account: ${CONCURRENT} single creates at once on one account (DynamoDB Local, moto)`);
    console.log('p50 ms | p99 ms | max ms | wall ms | answers | credits left (expected) | articles');
    console.log(
      `${percentile(times, 50).toFixed(0).padStart(6)} | ${percentile(times, 99).toFixed(0).padStart(6)} | ${(times.at(-1) ?? 0).toFixed(0).padStart(6)} | ${wall.toFixed(0).padStart(7)} | ${[...statuses].map(([status, count]) => `${count}x${status}`).join(' ')} | ${left} (0) | ${queued.total ?? '?'} (goal: p99 <= 2000 ms)`,
    );
    console.log(`The ${CONCURRENT} creates made ${createCalls}`);

    const batchTimes: number[] = [];
    let batchCalls = '';
    for (let run = 0; run < BATCH_RUNS; run++) {
      const batchAccount = await newAccount(BATCH_ITEMS * price, 100_000);
      calls.reset();
      const begin = performance.now();
      const response = await send(
        batchAccount,
        { items: Array.from({ length: BATCH_ITEMS }, (_, index) => item(index)) },
        createBatch,
        'create-batch',
      );
      batchTimes.push(performance.now() - begin);
      batchCalls = calls.summary();
      if (response.statusCode !== 202)
        throw new Error(`batch answered ${response.statusCode}: ${response.body}`);
      const left = (await deps.accountStore().get(batchAccount))?.credits;
      if (left !== 0) throw new Error(`batch left ${left} credits, expected 0`);
    }
    batchTimes.sort((a, b) => a - b);
    console.log(
      `\nA ${BATCH_ITEMS}-item batch accepted (JSON, one request; ${BATCH_RUNS} runs, exact charge checked)`,
    );
    console.log('p50 ms | min ms | max ms');
    console.log(
      `${percentile(batchTimes, 50).toFixed(0).padStart(6)} | ${(batchTimes[0] ?? 0).toFixed(0).padStart(6)} | ${(batchTimes.at(-1) ?? 0).toFixed(0).padStart(6)} (goal: p50 <= 3000 ms)`,
    );
    console.log(`One batch made ${batchCalls}`);
  } finally {
    await stack.stop();
  }
}

if (require.main === module) {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  hotAccountBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
