/**
 * `npm run bench:first-request`: a cold CreateArticle from its start to its first answer, end to
 * end (never asserted in tests). Each run is a fresh `node` process that `require`s the handler's
 * bundle, built as the stack builds it, and hands it one create request (a 202: credits reserved,
 * the article stored and queued) against DynamoDB Local and moto. Prints the medians of init, the
 * first request and their sum. `bench:cold` times init alone; this shows that what init no longer
 * does (the create schema, built while the first request's rate-limit call is on the network) is
 * not simply paid by the first request instead.
 *
 * DynamoDB answers here in about a millisecond, which leaves nothing to overlap;
 * `BENCH_DYNAMODB_DELAY_MS` puts a proxy before it that holds each chunk that long each way, as a
 * network and DynamoDB's own work would. `BENCH_COMPARE_BUNDLE=<index.js>` runs another build of
 * the handler in the same loop (interleaved) for an A/B.
 *
 * Settings: BENCH_RUNS (21), BENCH_DYNAMODB_DELAY_MS (0), BENCH_COMPARE_BUNDLE.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect as netConnect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAccount } from '../functions/core/accounts';
import { bundleBuilder } from '../test/support/bundles';
import * as deps from '../test/support/deps';
import { startBenchStack } from './bench-stack';
import { type ColdRun, coldRun, printMedians } from './cold-process';

const RUNS = Number(process.env.BENCH_RUNS ?? '21');
const DELAY_MS = Number(process.env.BENCH_DYNAMODB_DELAY_MS ?? '0');
/** A create request as API Gateway hands it over once the authorizer named the account. */
function createEvent(accountId: string, index: number) {
  return {
    httpMethod: 'POST',
    resource: '/v1/articles/create',
    path: '/v1/articles/create',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Host: 'bench.example' },
    body: `keyword=cold+start+${index}&h2_count=2&ai_model=gpt-3.5-turbo&language=en`,
    isBase64Encoded: false,
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: { requestId: `bench-${index}`, path: '/v1/articles/create', authorizer: { accountId } },
  };
}

/** A TCP proxy to `endpoint` that holds each chunk `delayMs` in each direction. */
async function delayingProxy(endpoint: string, delayMs: number): Promise<{ url: string; server: Server }> {
  const target = new URL(endpoint);
  const server = createServer((client) => {
    const upstream = netConnect(Number(target.port), target.hostname);
    const later = (send: () => void) => setTimeout(send, delayMs);
    client.on('data', (chunk) => later(() => upstream.write(chunk)));
    upstream.on('data', (chunk) => later(() => client.write(chunk)));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server };
}

async function main(): Promise<void> {
  const { stop } = await startBenchStack({ prefix: 'first-request', latencyMs: 0 });
  const outDir = mkdtempSync(path.join(tmpdir(), 'inkpress-first-request-'));
  let proxy: Server | undefined;
  try {
    const bundles: Record<string, string> = {
      'this build': await bundleBuilder(() => outDir)('CreateArticle'),
      ...(process.env.BENCH_COMPARE_BUNDLE
        ? { compared: path.resolve(process.env.BENCH_COMPARE_BUNDLE) }
        : {}),
    };
    const { account } = await createAccount(
      { accounts: deps.accountStore(), tokens: deps.tokenStore() },
      { name: 'First request bench', credits: 100_000, dailyLimit: 100_000 },
    );
    const env: Record<string, string | undefined> = {
      ...process.env,
      AWS_LAMBDA_FUNCTION_NAME: 'Inkpress-CreateArticle',
    };
    if (DELAY_MS > 0) {
      const delayed = await delayingProxy(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '', DELAY_MS);
      proxy = delayed.server;
      env.AWS_ENDPOINT_URL_DYNAMODB = delayed.url;
    }
    const timings = new Map<string, ColdRun<unknown>[]>(Object.keys(bundles).map((name) => [name, []]));
    for (let index = 0; index < RUNS; index++) {
      for (const [name, file] of Object.entries(bundles)) {
        const event = createEvent(account.accountId, index);
        const measured = await coldRun<{ statusCode: number }>(file, event, { timeoutMs: 29_000, env });
        const status = measured.result.statusCode;
        if (status !== 202) throw new Error(`${name}: the create answered ${status}`);
        timings.get(name)?.push(measured);
      }
    }
    console.log(
      `\nCold CreateArticle to its first answer (DynamoDB ${DELAY_MS} ms away each way; median of ${RUNS} fresh processes)`,
    );
    printMedians('first request', timings);
  } finally {
    proxy?.close();
    await stop();
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
