/**
 * `npm run bench:backlog`: a backlog of waiting articles, created through the HTTP API of the
 * local runtime, drained by the capped worker pool with a slow fake model (never asserted in
 * tests). Prints duplicate model calls, refunds, re-sends, and the drain time next to its ideal
 * (articles x time per article / concurrency).
 *
 * The backlog is created as clients create it: `POST /v1/articles/create` with a bearer token,
 * through the local API server (the route table, the authorizer, the handler wrapper with its rate
 * limit, raised by configuration for the bench: INKPRESS_RATE_LIMIT_PER_SECOND and _BURST).
 *
 * Time per article: one worker drains a handful of probe articles; the clock stops when the last
 * one is done, not after the empty poll that ends the loop.
 *
 * Clocks: the worker and its leases run on the real clock. The backlog's age is compressed by
 * running the sweeper with its clock moved forward (6 h, 3 days, 13 days) while every article
 * waits, as if the queue had been that long (each of those lines says so), and on the real clock
 * every 2 s (30x the deployed rate) while the pool drains it.
 *
 * Settings: BACKLOG_ARTICLES (10000), BENCH_MODEL_LATENCY_MS (100), BACKLOG_CONCURRENCY (the
 * deployed worker cap, 10), BACKLOG_CLIENTS (parallel API clients creating the backlog, 20).
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { createAccount } from '../functions/core/accounts';
import { recoverStalledGenerations } from '../functions/core/articles/sweep-articles';
import { routes } from '../functions/routes';
import { runtimeSettings } from '../functions/shared/runtime-settings';
import { handler as worker } from '../functions/worker/generation-worker';
import { createApiServer } from '../local/api-server';
import { sqsRecord } from '../local/queue-poller';
import * as deps from '../test/support/deps';
import { startBenchStack } from './bench-stack';

const ARTICLES = Number(process.env.BACKLOG_ARTICLES ?? '10000');
const LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? '100');
const CLIENTS = Number(process.env.BACKLOG_CLIENTS ?? '20');

async function main(): Promise<void> {
  const { fake, resources, stop } = await startBenchStack({ prefix: 'backlog', latencyMs: LATENCY_MS });
  // The account's token bucket, raised so that the bench's clients are never told 429 (the
  // handlers read it at their first request).
  process.env.INKPRESS_RATE_LIMIT_PER_SECOND ??= '1000';
  process.env.INKPRESS_RATE_LIMIT_BURST ??= '1000';
  const api = createApiServer({
    routes,
    authorizerCacheSeconds: runtimeSettings.authorizerCacheSeconds,
    log: (line) => console.error(line),
  });
  const baseUrl = `http://127.0.0.1:${await api.listen(0)}`;
  try {
    const concurrency = Number(process.env.BACKLOG_CONCURRENCY ?? runtimeSettings.workerMaxConcurrency);

    const sqs = new SQSClient({});
    const queueArn = `arn:aws:sqs:us-east-1:000000000000:${resources.queueUrl.split('/').pop()}`;
    const context = { awsRequestId: 'bench', functionName: 'GenerationWorker' } as Context;
    /** One event-source poller: receive one message, run the worker, delete it when it succeeded. */
    const pollOnce = async (): Promise<boolean> => {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: resources.queueUrl,
          MaxNumberOfMessages: 1,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      const message = Messages?.[0];
      if (!message) return false;
      const event: SQSEvent = { Records: [sqsRecord(message, queueArn)] };
      const { batchItemFailures } = await worker(event, context);
      if (batchItemFailures.length === 0) {
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: resources.queueUrl, ReceiptHandle: message.ReceiptHandle }),
        );
      }
      return true;
    };

    const newAccount = async (credits: number) =>
      createAccount(
        { accounts: deps.accountStore(), tokens: deps.tokenStore() },
        { name: 'Backlog', credits, dailyLimit: ARTICLES * 2 },
      );
    const input = (index: number) => ({
      keyword: `backlog article ${index}`,
      h2_count: 1,
      ai_model: 'gpt-3.5-turbo' as const,
      language: 'en',
      need_bold: false,
      draft: false,
    });
    let tooMany = 0;
    /**
     * One `POST /v1/articles/create`, as a client sends it: a 429 is sent again after its
     * Retry-After (and counted); anything else but 202 stops the bench.
     */
    const createArticle = async (token: string, index: number): Promise<void> => {
      const response = await fetch(`${baseUrl}/v1/articles/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(input(index)),
      });
      if (response.status === 429) {
        tooMany++;
        const seconds = Number(response.headers.get('retry-after') ?? '1');
        await response.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        return createArticle(token, index);
      }
      if (response.status !== 202) {
        throw new Error(`create answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
      }
      await response.arrayBuffer();
    };

    // Time per article: one worker, an empty queue, a handful of articles; timed to the end of
    // the last one (the empty poll that ends the loop waits 1 s for nothing).
    const probeAccount = await newAccount(1000);
    const probes = 10;
    for (let index = 0; index < probes; index++) await createArticle(probeAccount.token, -1 - index);
    const probeStarted = performance.now();
    let probesDone = probeStarted;
    while (await pollOnce()) probesDone = performance.now();
    const perArticleMs = (probesDone - probeStarted) / probes;

    // The backlog, through the API.
    const price = 2;
    const { account: backlogAccount, token } = await newAccount(ARTICLES * price);
    const accountId = backlogAccount.accountId;
    const createStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < ARTICLES) await createArticle(token, next++);
      }),
    );
    const createMs = performance.now() - createStarted;
    fake.requests.length = 0;

    // The backlog waits: the sweeper, its clock moved on, must leave every article alone.
    const aged: Record<string, { resent: number; failed: number }> = {};
    for (const [label, offsetMs] of [
      ['6 h', 6 * 3600_000],
      ['3 days', 3 * 24 * 3600_000],
      ['13 days', 13 * 24 * 3600_000],
    ] as const) {
      aged[label] = await recoverStalledGenerations({
        ...deps.sweepDeps(),
        clock: () => new Date(Date.now() + offsetMs),
      });
    }

    // The drain: `concurrency` pollers, the sweeper every 2 s on the real clock.
    let sweeping = true;
    const sweeps = { resent: 0, failed: 0 };
    const sweeper = (async () => {
      while (sweeping) {
        const result = await recoverStalledGenerations(deps.sweepDeps());
        sweeps.resent += result.resent;
        sweeps.failed += result.failed;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    })();
    const drainStarted = performance.now();
    let lastDone = drainStarted;
    let idleRounds = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (idleRounds < concurrency * 2) {
          if (await pollOnce()) {
            idleRounds = 0;
            lastDone = performance.now();
          } else idleRounds++;
        }
      }),
    );
    // To the end of the last article (the empty polls that stop the pool are not the drain).
    const drainMs = lastDone - drainStarted;
    sweeping = false;
    await sweeper;

    const outlineCalls = new Map<string, number>();
    for (const request of fake.requests) {
      // The outline is the one structured call per attempt that is not the meta call.
      const format = request.response_format as { json_schema?: { name?: string } } | undefined;
      if (!format || format.json_schema?.name === 'article_meta') continue;
      const keyword = /backlog article \d+/.exec(JSON.stringify(request.messages))?.[0] ?? '?';
      outlineCalls.set(keyword, (outlineCalls.get(keyword) ?? 0) + 1);
    }
    const duplicates = [...outlineCalls.values()].reduce((sum, calls) => sum + Math.max(0, calls - 1), 0);
    const account = await deps.accountStore().get(accountId);
    const refunded = (account?.credits ?? 0) / price;
    const idealMs = (ARTICLES * perArticleMs) / concurrency;

    console.log(
      `\nBacklog of ${ARTICLES} articles (h2_count 1: 5 model calls in 2 rounds of ${LATENCY_MS} ms), ${concurrency} workers`,
    );
    console.log(
      `created through the API (POST /v1/articles/create, ${CLIENTS} clients) in ${(createMs / 1000).toFixed(1)} s (${(ARTICLES / (createMs / 1000)).toFixed(0)}/s; ${tooMany} answers 429, sent again after Retry-After)`,
    );
    for (const [label, result] of Object.entries(aged)) {
      console.log(
        `sweeper with the backlog ${label} old (the sweeper's clock moved ${label} ahead; the articles and the worker keep the real clock): re-sent ${result.resent}, failed ${result.failed}`,
      );
    }
    console.log(`generated:                 ${account?.generatedCount ?? 0} of ${ARTICLES}`);
    console.log(`duplicate model calls:     ${duplicates} (outlines for ${outlineCalls.size} articles)`);
    console.log(`refunds:                   ${refunded}`);
    console.log(`sweeper during the drain:  re-sent ${sweeps.resent}, failed ${sweeps.failed}`);
    console.log(`time per article (alone):  ${perArticleMs.toFixed(0)} ms (to the end of the last probe)`);
    console.log(`drain time:                ${(drainMs / 1000).toFixed(1)} s`);
    console.log(`ideal (articles x time per article / concurrency): ${(idealMs / 1000).toFixed(1)} s`);
    console.log(`drain / ideal:             ${(drainMs / idealMs).toFixed(2)}`);
  } finally {
    await api.close();
    await stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
