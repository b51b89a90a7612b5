/**
 * The local runtime behind `npm start`: DynamoDB Local and moto_server as child processes with
 * their data in the data folder, the resources provisioned idempotently, the functions'
 * environment set in this process, and the API, the queue pollers (generation, webhooks) and the sweeper schedule
 * running the same handlers as the deployed stack.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { accountStore, tokenStore } from '../functions/composition/accounts';
import { articleStore } from '../functions/composition/articles';
import { generationQueue } from '../functions/composition/generation-queue';
import { authenticate, createAccount } from '../functions/core/accounts';
import { resendUnfinishedGenerations } from '../functions/core/articles/resend-unfinished';
import { UnauthenticatedError } from '../functions/core/errors';
import { combinedAccess, routes, webhookDispatcher } from '../functions/routes';
import { loadConfig } from '../functions/shared/config';
import { runtimeSettings, webhookSettings } from '../functions/shared/runtime-settings';
import { createApiServer } from './api-server';
import { lockWhenFree, readRuntimeInfo, removeRuntimeInfo, writeRuntimeInfo } from './data-lock';
import { type SupervisedEmulator, superviseEmulators } from './emulator-supervisor';
import { freePort, type RunningEmulator, startDynamoDbLocal, startMotoServer } from './emulators';
import { HandlerLoader } from './handler-loader';
import { LocalAuthorizer } from './local-authorizer';
import {
  dataPaths,
  LOCAL_PREFIX,
  LOCAL_REGION,
  localDataDir,
  localDefaults,
  localFunctionEnv,
} from './local-config';
import { startOrphanReaper } from './orphan-reaper';
import { type ProvisionedResources, provision } from './provision';
import { startQueuePoller } from './queue-poller';
import { startScheduler } from './scheduler';

export interface LocalRuntimeOptions {
  /** API port; 0 picks a free one. Default 3000. */
  port?: number;
  host?: string;
  /** Default `$INKPRESS_DATA_DIR` or `.inkpress/`. */
  dataDir?: string;
  /** Seconds between sweeper runs (0: only the first run). Default 60. */
  sweepSeconds?: number;
  firstSweepAfterMs?: number;
  pollWaitSeconds?: number;
  /** Authorizer decision cache TTL, as on the deployed API. Default runtimeSettings.authorizerCacheSeconds. */
  authorizerCacheSeconds?: number;
  /** Emulator ports; default free ports (an in-process restart reuses the previous ones). */
  emulatorPorts?: { dynamodb?: number; moto?: number };
  /** One line per request. */
  logRequests?: boolean;
  log?: (line: string) => void;
  /**
   * Called when an emulator died and could not be restored (the runtime has stopped by then);
   * `message` says why. Default: logged.
   */
  onFatal?: (message: string) => void;
  /** When the runtime gives up on a dying emulator (see emulator-supervisor.ts). */
  supervision?: { maxRestartsPerMinute?: number; restoreWithinMs?: number };
}

export interface LocalRuntime {
  baseUrl: string;
  port: number;
  dataDir: string;
  /** Bearer token of the local account (same across restarts on the same data folder). */
  token: string;
  accountId: string;
  /** True when this start created the local account. */
  accountCreated: boolean;
  endpoints: { dynamodb: string; moto: string };
  resources: ProvisionedResources;
  /** Process ids of the emulators and of their orphan reaper, now. */
  readonly childPids: number[];
  readonly emulatorPids: { dynamodb: number; moto: number };
  /** False while an emulator is down and being restarted (the API answers 503). */
  readonly available: boolean;
  /** Articles that were queued when the runtime last stopped, sent to generation again at this start. */
  resentAtStart: number;
  /** Things to tell the user at start-up (e.g. an emulator not limited to 127.0.0.1). */
  warnings: string[];
  stop(): Promise<void>;
}

/** How long a stop after a fatal emulator failure may take before `onFatal` is called anyway. */
const FATAL_STOP_GRACE_MS = 10_000;

/**
 * The functions' SDK clients are module singletons (as in a warm Lambda) that keep the endpoint
 * they were created with, so a second start in the same process must reuse the emulator ports.
 */
let previousEmulatorPorts: { dynamodb: number; moto: number } | undefined;

export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const log = options.log ?? ((line: string) => console.log(line));
  const dataDir = options.dataDir ?? localDataDir();
  const paths = dataPaths(dataDir);
  mkdirSync(dataDir, { recursive: true });

  const lock = await lockWhenFree(dataDir, 'runtime', 30_000);
  if (!('release' in lock)) {
    const running = readRuntimeInfo(dataDir);
    throw new Error(
      lock.kind === 'runtime'
        ? `Inkpress is already running on ${dataDir} (pid ${lock.pid}${running ? `, ${running.baseUrl}` : ''}).`
        : `The data folder ${dataDir} is busy (admin command, pid ${lock.pid}); try again.`,
    );
  }

  const cleanups: (() => Promise<void> | void)[] = [() => lock.release()];
  let emulators: RunningEmulator[] = [];
  // Last resort when the process exits without stop(): no emulator and no lock left behind.
  const onExit = () => {
    for (const emulator of emulators) emulator.process.kill('SIGKILL');
    removeRuntimeInfo(dataDir);
    lock.release();
  };
  process.on('exit', onExit);
  cleanups.push(() => {
    process.off('exit', onExit);
  });
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse().splice(0)) {
      try {
        await cleanup();
      } catch (error) {
        log(`Stopping: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= cleanUp();
    return stopping;
  };

  try {
    const ports = await emulatorPorts(options.emulatorPorts);
    const startDynamoDb = () =>
      startDynamoDbLocal({ port: ports.dynamodb, dataDir: paths.dynamodb, fastStart: true });
    const startMoto = () => startMotoServer({ port: ports.moto, stateDir: paths.moto });
    const started = await Promise.allSettled([startDynamoDb(), startMoto()]);
    for (const result of started) if (result.status === 'fulfilled') emulators.push(result.value);
    let reaper = startOrphanReaper(emulators.map((emulator) => emulator.process.pid ?? 0));
    cleanups.push(() => reaper.stop());
    cleanups.push(() => Promise.all(emulators.map((emulator) => emulator.stop())).then(() => undefined));
    const failure = started.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
    previousEmulatorPorts = ports;
    const [dynamodbEmulator, motoEmulator] = emulators as [RunningEmulator, RunningEmulator];
    const endpoints = { dynamodb: dynamodbEmulator.endpoint, moto: motoEmulator.endpoint };
    const warnings = emulators.flatMap((emulator) => emulator.warning ?? []);

    const clientConfig = clientSettings();
    const clients = {
      dynamodb: new DynamoDBClient({ ...clientConfig, endpoint: endpoints.dynamodb }),
      sqs: new SQSClient({ ...clientConfig, endpoint: endpoints.moto }),
      kms: new KMSClient({ ...clientConfig, endpoint: endpoints.moto }),
    };
    cleanups.push(() => {
      clients.dynamodb.destroy();
      clients.sqs.destroy();
      clients.kms.destroy();
    });
    const resources = await provision(clients, { prefix: LOCAL_PREFIX });
    Object.assign(process.env, localFunctionEnv(resources.env, endpoints));

    const account = await ensureLocalAccount(paths.token, log);
    // The queue lived in moto's memory: whatever was waiting or being generated is sent again.
    const resentAtStart = await resendQueuedArticles(true);

    let available = true;
    const loader = new HandlerLoader(log);
    const authorizer = new LocalAuthorizer(
      loader,
      options.authorizerCacheSeconds ?? localDefaults.authorizerCacheSeconds,
      log,
    );
    const api = createApiServer({
      routes,
      loader,
      authorizer,
      log,
      logRequests: options.logRequests ?? false,
      available: () => available,
      // DynamoDB Local answers a TransactWriteItems before it is in its file, and commits it
      // when the next request arrives (a kill -9 right after the answer loses it): one cheap
      // request after each write request, before the client hears it was accepted.
      persistWrites: async () => {
        await clients.dynamodb.send(new DescribeTableCommand({ TableName: resources.tableNames.accounts }));
      },
    });
    const host = options.host ?? localDefaults.host;
    let port: number;
    try {
      port = await api.listen(options.port ?? localDefaults.port, host);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new Error(`Port ${options.port ?? localDefaults.port} is in use: set PORT to another port.`);
      }
      throw error;
    }
    cleanups.push(() => api.close());
    const baseUrl = `http://${host}:${port}`;

    const poller = startQueuePoller({
      sqs: clients.sqs,
      queueUrl: resources.queueUrl,
      loader,
      log,
      batchSize: runtimeSettings.workerBatchSize,
      maxConcurrency: runtimeSettings.workerMaxConcurrency,
      waitTimeSeconds: options.pollWaitSeconds ?? localDefaults.pollWaitSeconds,
    });
    cleanups.push(() => poller.stop());
    const webhookPoller = startQueuePoller({
      sqs: clients.sqs,
      queueUrl: resources.webhookQueueUrl,
      loader,
      log,
      entry: webhookDispatcher.entry,
      batchSize: webhookSettings.batchSize,
      waitTimeSeconds: options.pollWaitSeconds ?? localDefaults.pollWaitSeconds,
    });
    cleanups.push(() => webhookPoller.stop());
    const scheduler = startScheduler({
      loader,
      log,
      intervalSeconds: options.sweepSeconds ?? localDefaults.sweepSeconds,
      firstRunAfterMs: options.firstSweepAfterMs ?? 2_000,
    });
    cleanups.push(() => scheduler.stop());

    const dynamodbSupervised: SupervisedEmulator = {
      current: dynamodbEmulator,
      restart: () => whenPortFree(ports.dynamodb, 'DynamoDB Local').then(startDynamoDb),
    };
    const motoSupervised: SupervisedEmulator = {
      current: motoEmulator,
      restart: () => whenPortFree(ports.moto, 'moto_server').then(startMoto),
    };
    const supervisor = superviseEmulators({
      emulators: [dynamodbSupervised, motoSupervised],
      log,
      ...options.supervision,
      onUnavailable: () => {
        available = false;
        poller.pause();
        scheduler.pause();
      },
      afterRestart: async (restarted) => {
        emulators = supervisor.running();
        const previousReaper = reaper;
        reaper = startOrphanReaper(emulators.map((emulator) => emulator.process.pid ?? 0));
        await previousReaper.stop();
        if (restarted.includes(motoSupervised.current)) await restoreQueue();
      },
      onAvailable: () => {
        available = true;
        poller.resume();
        scheduler.resume();
      },
      onFatal: (reason) => {
        const message = `${reason} Inkpress is stopping: accepted articles are kept in ${dataDir} and sent to generation again at the next start.`;
        let timer: NodeJS.Timeout | undefined;
        const gaveUp = new Promise((resolve) => {
          timer = setTimeout(resolve, FATAL_STOP_GRACE_MS);
        });
        void Promise.race([stop(), gaveUp]).then(() => {
          clearTimeout(timer);
          (options.onFatal ?? log)(message);
        });
      },
    });
    // First in line at stop: emulators stopped on purpose are not restarted.
    cleanups.push(() => supervisor.stop());

    /** moto came back empty: the queues and key again, then the messages its queue held. */
    async function restoreQueue(): Promise<void> {
      const restored = await provision(clients, { prefix: LOCAL_PREFIX });
      if (restored.queueUrl !== resources.queueUrl || restored.keyId !== resources.keyId) {
        throw new Error('moto_server came back with another queue or key.');
      }
      const resent = await resendQueuedArticles(false);
      log(`moto_server restarted: ${resent} queued article(s) sent to generation again.`);
    }

    writeRuntimeInfo(dataDir, {
      pid: process.pid,
      baseUrl,
      dynamodbEndpoint: endpoints.dynamodb,
      motoEndpoint: endpoints.moto,
      startedAt: new Date().toISOString(),
    });
    cleanups.push(() => removeRuntimeInfo(dataDir));

    return {
      baseUrl,
      port,
      dataDir,
      token: account.token,
      accountId: account.accountId,
      accountCreated: account.created,
      endpoints,
      resources,
      get childPids() {
        return [...emulators.map((emulator) => emulator.process.pid ?? 0), reaper.pid ?? 0];
      },
      get emulatorPids() {
        return {
          dynamodb: dynamodbSupervised.current.process.pid ?? 0,
          moto: motoSupervised.current.process.pid ?? 0,
        };
      },
      get available() {
        return available;
      },
      resentAtStart,
      warnings,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
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

/** Waits (a few seconds at most) until a dead emulator's port can be listened on again. */
async function whenPortFree(port: number, name: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await isPortFree(port))) {
    if (Date.now() > deadline) throw new Error(`Port ${port} for ${name} is in use by another process.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function emulatorPorts(requested: LocalRuntimeOptions['emulatorPorts']) {
  const dynamodb = requested?.dynamodb ?? previousEmulatorPorts?.dynamodb ?? (await freePort());
  const moto = requested?.moto ?? previousEmulatorPorts?.moto ?? (await freePort());
  for (const [name, port] of [
    ['DynamoDB Local', dynamodb],
    ['moto_server', moto],
  ] as const) {
    if (!(await isPortFree(port))) throw new Error(`Port ${port} for ${name} is in use by another process.`);
  }
  return { dynamodb, moto };
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The configuration of every function, from the environment this process set for them. */
function localConfig() {
  return loadConfig(process.env, combinedAccess());
}

function clientSettings() {
  return { region: LOCAL_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
}

/**
 * The local developer account: its token is kept in `local-token` (mode 600) so that every
 * start prints the same one; a token that no longer works (data folder reset, token revoked)
 * is replaced by a new account.
 */
async function ensureLocalAccount(
  tokenFile: string,
  log: (line: string) => void,
): Promise<{ token: string; accountId: string; created: boolean }> {
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
