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
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createAccount } from '../functions/core/accounts';
import { createArticle } from '../functions/core/articles/create-article';
import { bundleBuilder } from '../test/support/bundles';
import * as deps from '../test/support/deps';
import { receive, sqsEventOf } from '../test/support/generation-queue';
import { startBenchStack } from './bench-stack';

const RUNS = Number(process.env.BENCH_RUNS ?? '21');
const LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? '200');
const run = promisify(execFile);

/** In the fresh process: init (`require`), then the first message, each timed. */
const COLD_START = `
const started = performance.now();
const { handler } = require(process.argv[1]);
const initialized = performance.now();
handler(JSON.parse(process.argv[2]), { awsRequestId: 'bench', getRemainingTimeInMillis: () => 600000 }).then((result) => {
  const done = performance.now();
  process.stdout.write(JSON.stringify({ result, init: initialized - started, first: done - initialized }));
});`;

interface Timing {
  init: number;
  first: number;
}

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
    const timings = new Map<string, Timing[]>(Object.keys(bundles).map((name) => [name, []]));
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
        const { stdout } = await run(process.execPath, ['-e', COLD_START, file, JSON.stringify(event)], {
          env: { ...process.env, AWS_LAMBDA_FUNCTION_NAME: 'Inkpress-GenerationWorker' },
        });
        const measured = JSON.parse(stdout) as Timing & { result: { batchItemFailures: unknown[] } };
        if (measured.result.batchItemFailures.length > 0) throw new Error(`${name}: the article failed`);
        timings.get(name)?.push(measured);
      }
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    console.log(
      `\nCold worker to first generated article (fake model, ${LATENCY_MS} ms per answer; median of ${RUNS} fresh processes)`,
    );
    console.log('| bundle | init | first message | init + first message |\n|---|---:|---:|---:|');
    for (const [name, measured] of timings) {
      const init = median(measured.map((each) => each.init));
      const first = median(measured.map((each) => each.first));
      const total = median(measured.map((each) => each.init + each.first));
      console.log(`| ${name} | ${init.toFixed(1)} ms | ${first.toFixed(1)} ms | ${total.toFixed(1)} ms |`);
    }
  } finally {
    await stop();
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
