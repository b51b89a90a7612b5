/**
 * The local runtime behind `npm start`: DynamoDB Local and moto_server as supervised child
 * processes with their data in the data folder (or emulators that run already, `attach`, which
 * it never stops or restarts), the resources provisioned idempotently under its prefix, the
 * functions' environment set once in this process (as Lambda sets it before a handler loads),
 * and the API, the queue pollers (generation, webhooks) and the sweeper schedule running the
 * handlers of the route table.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { accountStore, tokenStore } from '../functions/composition/accounts';
import { articleStore } from '../functions/composition/articles';
import { generationQueue } from '../functions/composition/generation-queue';
import { authenticate, createAccount } from '../functions/core/accounts';
import { resendUnfinishedGenerations } from '../functions/core/articles/resend-unfinished';
import { UnauthenticatedError } from '../functions/core/errors';
import { combinedAccess, generationWorker, routes, sweeper, webhookDispatcher } from '../functions/routes';
import { loadConfig } from '../functions/shared/config';
import { webhookSettings } from '../functions/shared/runtime-settings';
import { createApiServer } from './api-server';
import { lockDataFolder } from './data-lock';
import { type SupervisedEmulator, superviseEmulators } from './emulator-supervisor';
import { freePort, type RunningEmulator, startDynamoDbLocal, startMotoServer } from './emulators';
import {
  type AttachedEmulators,
  checkResourcePrefix,
  dataPaths,
  emulatorClientEnv,
  LOCAL_PREFIX,
  localDataDir,
  localDefaults,
  messageOf,
} from './local-config';
import { provision } from './provision';
import { startQueuePoller } from './queue-poller';
import { startScheduler } from './scheduler';

export interface LocalRuntimeOptions {
  /** API port on 127.0.0.1; 0 picks a free one. Default 3000. */
  port?: number;
  /** Default `$INKPRESS_DATA_DIR` or `.inkpress/`. */
  dataDir?: string;
  /** Seconds between sweeper runs (0: only the first run, after `firstSweepAfterMs`, default 2 s). */
  sweepSeconds?: number;
  firstSweepAfterMs?: number;
  pollWaitSeconds?: number;
  authorizerCacheSeconds?: number;
  logRequests?: boolean;
  log?: (line: string) => void;
  /** Called when an emulator died and could not be restored (the runtime has stopped by then). */
  onFatal?: (message: string) => void;
  /**
   * Emulators that run already (`INKPRESS_DYNAMODB_ENDPOINT`, `INKPRESS_MOTO_ENDPOINT` for
   * `npm start`): the runtime uses them instead of starting its own, and never stops or restarts
   * them (docs/decisions.md, "Attaching the local runtime to emulators it did not start").
   */
  attach?: AttachedEmulators;
  /**
   * Prefix of the tables, queues, key alias and bucket (`INKPRESS_RESOURCE_PREFIX`); default
   * `inkpress-local`. Runtimes with different prefixes share emulators without seeing each
   * other's data.
   */
  prefix?: string;
}

export type LocalRuntime = Awaited<ReturnType<typeof startLocalRuntime>>;

/**
 * The functions' SDK clients are module singletons (as in a warm Lambda) that keep the endpoint
 * they were created with, and the handlers read the resources' names at their cold start, so a
 * second start in the same process reuses the emulator ports, and must use the same emulators
 * and prefix as the first.
 */
let previousEmulatorPorts: { dynamodb: number; moto: number } | undefined;
let firstStart: string | undefined;

export async function startLocalRuntime(options: LocalRuntimeOptions = {}) {
  const log = options.log ?? ((line: string) => console.log(line));
  const prefix = checkResourcePrefix(options.prefix ?? LOCAL_PREFIX);
  const { attach } = options;
  const setup = `${prefix} ${attach ? `${attach.dynamodb} ${attach.moto}` : 'own emulators'}`;
  if (firstStart !== undefined && firstStart !== setup) {
    throw new Error(
      'A second local runtime in the same process must use the same emulators and prefix as the first (the functions keep their clients and table names); start it in another process.',
    );
  }
  const dataDir = options.dataDir ?? localDataDir();
  const paths = dataPaths(dataDir);
  const lock = await lockDataFolder(dataDir, 'runtime', 30_000);
  if (!('release' in lock)) {
    throw new Error(
      lock.kind === 'runtime'
        ? `Inkpress is already running on ${dataDir} (pid ${lock.pid}${lock.baseUrl ? `, ${lock.baseUrl}` : ''}).`
        : `The data folder ${dataDir} is busy (admin command, pid ${lock.pid}); try again.`,
    );
  }
  /** The running emulators (`current` changes at each restart by the supervisor). */
  let emulators: SupervisedEmulator[] = [];
  const cleanups: (() => unknown)[] = [
    () => lock.release(),
    () => Promise.all(emulators.map(({ current }) => current.stop())),
  ];
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      for (const cleanup of cleanups.reverse().splice(0)) {
        await Promise.resolve()
          .then(cleanup)
          .catch((error: unknown) => log(`Stopping: ${messageOf(error)}`));
      }
    })();
    return stopping;
  };

  try {
    const ports =
      previousEmulatorPorts ??
      (attach ? { dynamodb: 0, moto: 0 } : { dynamodb: await freePort(), moto: await freePort() });
    const supervised = (restart: () => Promise<RunningEmulator>) =>
      restart().then((current) => ({ current, restart }));
    if (attach) {
      await Promise.all([
        expectAnswer(attach.dynamodb, 'DynamoDB', 'INKPRESS_DYNAMODB_ENDPOINT'),
        expectAnswer(attach.moto, 'SQS, KMS and S3', 'INKPRESS_MOTO_ENDPOINT'),
      ]);
    } else {
      // DynamoDB Local first, the supervisor's restart order (restoring moto's queue reads the articles).
      const started = await Promise.allSettled([
        supervised(() =>
          startDynamoDbLocal({ port: ports.dynamodb, dataDir: paths.dynamodb, fastStart: true }),
        ),
        supervised(() => startMotoServer({ port: ports.moto, stateDir: paths.moto })),
      ]);
      emulators = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      for (const result of started) if (result.status === 'rejected') throw result.reason;
      previousEmulatorPorts = ports;
    }
    firstStart ??= setup;
    const endpoints = attach
      ? { dynamodb: attach.dynamodb, moto: attach.moto }
      : { dynamodb: emulators[0]?.current.endpoint ?? '', moto: emulators[1]?.current.endpoint ?? '' };

    // The emulators' endpoints, region and credentials, for this process's clients and the functions'.
    Object.assign(process.env, emulatorClientEnv(endpoints));
    const clients = { dynamodb: new DynamoDBClient(), sqs: new SQSClient(), kms: new KMSClient() };
    cleanups.push(() => {
      for (const client of Object.values(clients)) client.destroy();
    });
    const resources = await provision(clients, { prefix });
    // The functions' environment as deployed, plus local mode (POWERTOOLS_LOG_LEVEL: process-defaults.ts).
    Object.assign(process.env, resources.env, {
      INKPRESS_LOCAL_MODE: 'true',
      INKPRESS_ALLOW_PRIVATE_URLS: process.env.INKPRESS_ALLOW_PRIVATE_URLS ?? 'true',
    });
    const account = await ensureLocalAccount(paths.token, log);
    // The queue lived in moto's memory: whatever was waiting or being generated is sent again.
    const resentAtStart = await resendQueuedArticles(true);

    let available = true;
    let outages = 0;
    const api = createApiServer({
      routes,
      log,
      logRequests: options.logRequests,
      authorizerCacheSeconds: options.authorizerCacheSeconds ?? localDefaults.authorizerCacheSeconds,
      emulators: () => ({ down: !available, outages }),
      // DynamoDB Local answers a TransactWriteItems before it is in its file, and commits it
      // when the next request arrives (a kill -9 right after the answer loses it): one cheap
      // request after each write request, before the client hears it was accepted.
      persistWrites: async () => {
        await clients.dynamodb.send(new DescribeTableCommand({ TableName: resources.tableNames.accounts }));
      },
    });
    const requestedPort = options.port ?? localDefaults.port;
    const port = await api.listen(requestedPort).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'EADDRINUSE'
        ? new Error(`Port ${requestedPort} is in use: set PORT to another port.`)
        : error;
    });
    cleanups.push(() => api.close());
    const baseUrl = `http://127.0.0.1:${port}`;

    const waitTimeSeconds = options.pollWaitSeconds ?? localDefaults.pollWaitSeconds;
    const { sqs } = clients;
    const eventSources = [
      startQueuePoller({ sqs, queueUrl: resources.queueUrl, worker: generationWorker, log, waitTimeSeconds }),
      startQueuePoller({
        sqs,
        queueUrl: resources.webhookQueueUrl,
        worker: webhookDispatcher,
        log,
        batchSize: webhookSettings.batchSize,
        oneAtATimePerBody: false,
        waitTimeSeconds,
      }),
      startScheduler({
        sweeper,
        log,
        intervalSeconds: options.sweepSeconds ?? localDefaults.sweepSeconds,
        firstRunAfterMs: options.firstSweepAfterMs ?? 2_000,
        prefix,
      }),
    ];
    cleanups.push(() => Promise.all(eventSources.map((source) => source.stop())));

    // Only the emulators it started (none when attached: it neither restarts nor stops those).
    const supervisor = superviseEmulators({
      emulators,
      log,
      onUnavailable: () => {
        available = false;
        outages++;
        for (const source of eventSources) source.pause();
      },
      afterRestart: async (restarted) => {
        if (restarted.some((emulator) => emulator.port === ports.moto)) await restoreQueue();
      },
      onAvailable: () => {
        available = true;
        for (const source of eventSources) source.resume();
      },
      onFatal: (reason) => {
        const message = `${reason} Inkpress is stopping: accepted articles are kept in ${dataDir} and sent to generation again at the next start.`;
        const gaveUp = new Promise((resolve) => setTimeout(resolve, 10_000).unref());
        void Promise.race([stop(), gaveUp]).then(() => (options.onFatal ?? log)(message));
      },
    });
    // First in line at stop: emulators stopped on purpose are not restarted.
    cleanups.push(() => supervisor.stop());

    /** moto came back empty: the queues and key again, then the messages its queue held. */
    async function restoreQueue(): Promise<void> {
      const restored = await provision(clients, { prefix });
      if (restored.queueUrl !== resources.queueUrl || restored.keyId !== resources.keyId) {
        throw new Error('moto_server came back with another queue or key.');
      }
      const resent = await resendQueuedArticles(false);
      log(`moto_server restarted: ${resent} queued article(s) sent to generation again.`);
    }

    lock.publish({
      baseUrl,
      dynamodbEndpoint: endpoints.dynamodb,
      prefix,
      functionEnvironment: { ...emulatorClientEnv(endpoints), ...resources.env },
    });
    const pidOf = (port: number) =>
      emulators.find(({ current }) => current.port === port)?.current.process.pid ?? 0;
    return {
      baseUrl,
      dataDir,
      /** Bearer token of the local account (the same across restarts on the same data folder). */
      token: account.token,
      accountId: account.accountId,
      accountCreated: account.created,
      endpoints,
      /** True when the emulators were given (`attach`), not started by this runtime. */
      attached: attach !== undefined,
      prefix,
      resources,
      /** Process ids of the emulators and of the watcher that cleans up after this process, now. */
      get childPids() {
        return [...emulators.map(({ current }) => current.process.pid ?? 0), lock.watcherPid];
      },
      get emulatorPids() {
        return { dynamodb: pidOf(ports.dynamodb), moto: pidOf(ports.moto) };
      },
      /** False while an emulator is down and being restarted (the API answers 503). */
      get available() {
        return available;
      },
      /** Articles that were queued when the runtime last stopped, sent to generation again at this start. */
      resentAtStart,
      /** Things to tell the user at start-up (e.g. an emulator not limited to 127.0.0.1). */
      warnings: emulators.flatMap(({ current }) => current.warning ?? []),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Any HTTP answer from an emulator given to attach to; a clear message when nothing answers. */
async function expectAnswer(endpoint: string, serves: string, variable: string): Promise<void> {
  try {
    const response = await fetch(endpoint, { signal: AbortSignal.timeout(10_000) });
    await response.body?.cancel();
  } catch (error) {
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? messageOf(error);
    throw new Error(
      `Nothing answers at ${endpoint}, the ${serves} emulator to attach to (${variable} for npm start): start it first (${reason}).`,
    );
  }
}

/**
 * Sends the generation message of every queued article; throws when some could not be sent.
 * `leasesAreDead` at start (the process that held the leases stopped), not after a restart of
 * moto alone (this process's workers still hold theirs).
 */
async function resendQueuedArticles(leasesAreDead: boolean): Promise<number> {
  const config = localConfig();
  const { resent, failed } = await resendUnfinishedGenerations(
    { articles: articleStore(config), queue: generationQueue(config) },
    { leasesAreDead },
  );
  if (failed > 0) throw new Error(`${failed} queued article(s) could not be sent to the generation queue.`);
  return resent;
}

/**
 * The local developer account: its token is kept in `local-token` (mode 600) so that every
 * start prints the same one; a token that no longer works (data folder reset, token revoked)
 * is replaced by a new account.
 */
async function ensureLocalAccount(tokenFile: string, log: (line: string) => void) {
  const saved = existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '';
  if (saved !== '') {
    try {
      const accountId = await authenticate({ tokens: tokenStore(localConfig()) }, `Bearer ${saved}`);
      return { token: saved, accountId, created: false };
    } catch (error) {
      if (!(error instanceof UnauthenticatedError)) throw error;
      log(`The token in ${tokenFile} no longer works; creating a new local account.`);
    }
  }
  const { account, token } = await createAccount(
    { accounts: accountStore(localConfig()), tokens: tokenStore(localConfig()) },
    { name: localDefaults.account.name, credits: localDefaults.account.credits },
  );
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  chmodSync(tokenFile, 0o600);
  return { token, accountId: account.accountId, created: true };
}

/** The configuration of every function, from the environment this process set for them. */
function localConfig() {
  return loadConfig(process.env, combinedAccess());
}
