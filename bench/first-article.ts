/**
 * `npm run bench:first-article`: a cold worker from its start to its first generated article,
 * end to end (never asserted in tests). Each run is a fresh `node` process that `require`s the
 * worker's bundle, built as the stack builds it, and hands it one SQS message of an article with
 * two H2 against DynamoDB Local, moto and a fake model answering after a fixed latency. Prints the
 * medians of init, the first message and their sum; `BENCH_COMPARE_BUNDLE=<index.js>` runs another
 * build of the worker in the same loop (interleaved) for an A/B.
 *
 * Settings: BENCH_RUNS (21), BENCH_MODEL_LATENCY_MS (200), BENCH_COMPARE_BUNDLE.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAccount } from '../functions/core/accounts';
import { createArticle } from '../functions/core/articles/create-article';
import { bundleBuilder } from '../test/support/bundles';
import * as deps from '../test/support/deps';
import { receive, sqsEventOf } from '../test/support/generation-queue';
import { startBenchStack } from './bench-stack';
import { type ColdRun, coldRun, printMedians } from './cold-process';

const RUNS = Number(process.env.BENCH_RUNS ?? '21');
const LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? '200');
async function main(): Promise<void> {
  const { resources, stop } = await startBenchStack({ prefix: 'first-article', latencyMs: LATENCY_MS });
  const outDir = mkdtempSync(path.join(tmpdir(), 'inkpress-first-article-'));
  try {
    const bundles: Record<string, string> = {
      'this build': await bundleBuilder(() => outDir)('GenerationWorker'),
      ...(process.env.BENCH_COMPARE_BUNDLE
        ? { compared: path.resolve(process.env.BENCH_COMPARE_BUNDLE) }
        : {}),
    };
    const { account } = await createAccount(
      { accounts: deps.accountStore(), tokens: deps.tokenStore() },
      { name: 'First article bench', credits: 100_000, dailyLimit: 100_000 },
    );
    const timings = new Map<string, ColdRun<unknown>[]>(Object.keys(bundles).map((name) => [name, []]));
    for (let index = 0; index < RUNS; index++) {
      for (const [name, file] of Object.entries(bundles)) {
        await createArticle(deps.createArticleDeps(), account.accountId, {
          keyword: `first article ${index}`,
          h2_count: 2,
          ai_model: 'gpt-3.5-turbo',
          language: 'en',
          need_bold: false,
          draft: false,
        });
        const event = sqsEventOf(await receive(resources.queueUrl, 1, 1));
        const measured = await coldRun<{ batchItemFailures: unknown[] }>(file, event, {
          timeoutMs: 600_000,
          env: { ...process.env, AWS_LAMBDA_FUNCTION_NAME: 'Inkpress-GenerationWorker' },
        });
        if (measured.result.batchItemFailures.length > 0) throw new Error(`${name}: the article failed`);
        timings.get(name)?.push(measured);
      }
    }
    console.log(
      `\nCold worker to first generated article (fake model, ${LATENCY_MS} ms per answer; median of ${RUNS} fresh processes)`,
    );
    printMedians('first message', timings);
  } finally {
    await stop();
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
