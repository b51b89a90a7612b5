/**
 * Where the admin CLI reads and writes accounts: the deployed tables when their names are in
 * the environment, otherwise the local data folder, through the DynamoDB Local of a running
 * `npm start` when there is one, or through a DynamoDB Local started for this command only.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { lockWhenFree, readRuntimeInfo } from './data-lock';
import { startDynamoDbLocal } from './emulators';
import { dataPaths, emulatorClientEnv, LOCAL_PREFIX, LOCAL_REGION, localDataDir } from './local-config';
import { startOrphanReaper } from './orphan-reaper';
import { provisionTables } from './provision';

export interface AdminConnection {
  /** `deployed`, `running` (through npm start) or `own` (DynamoDB Local started for this command). */
  mode: 'deployed' | 'running' | 'own';
  close(): Promise<void>;
}

/** Waiting for another admin command, or for a starting `npm start`, gives up after this. */
const WAIT_MS = 60_000;

export function usesDeployedTables(env: NodeJS.ProcessEnv = process.env): boolean {
  return !env.INKPRESS_DATA_DIR && Boolean(env.ACCOUNTS_TABLE) && Boolean(env.API_TOKENS_TABLE);
}

/** Points this process's environment at the account tables; call before using the repositories. */
export async function openAdminConnection(env: NodeJS.ProcessEnv = process.env): Promise<AdminConnection> {
  if (usesDeployedTables(env)) return { mode: 'deployed', close: async () => undefined };

  const dataDir = localDataDir(env);
  const lock = await lockWhenFree(dataDir, 'admin', WAIT_MS);
  if ('release' in lock) {
    let dynamodb: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
    try {
      dynamodb = await startDynamoDbLocal({ dataDir: dataPaths(dataDir).dynamodb, fastStart: true });
      await useLocalTables(dynamodb.endpoint);
    } catch (error) {
      await dynamodb?.stop();
      lock.release();
      throw error;
    }
    const running = dynamodb;
    const reaper = startOrphanReaper([running.process.pid ?? 0]);
    return {
      mode: 'own',
      close: async () => {
        await running.stop();
        await reaper.stop();
        lock.release();
      },
    };
  }
  if (lock.kind !== 'runtime') {
    throw new Error(`The data folder ${dataDir} is busy (another admin command, pid ${lock.pid}).`);
  }
  const info = await runtimeInfoOf(dataDir, lock.pid);
  await useLocalTables(info.dynamodbEndpoint);
  return { mode: 'running', close: async () => undefined };
}

async function runtimeInfoOf(dataDir: string, pid: number) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const info = readRuntimeInfo(dataDir);
    if (info?.pid === pid) return info;
    if (Date.now() > deadline) {
      throw new Error(`npm start (pid ${pid}) holds ${dataDir} but did not become ready.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function useLocalTables(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const { env } = await provisionTables(client, { prefix: LOCAL_PREFIX });
    Object.assign(process.env, env, emulatorClientEnv({ dynamodb: endpoint }));
  } finally {
    client.destroy();
  }
}
