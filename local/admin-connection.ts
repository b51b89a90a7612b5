/**
 * Where the admin CLI reads and writes accounts: the deployed tables when all their names are
 * in the environment, otherwise the local data folder, through the DynamoDB Local of a running
 * `npm start` when there is one, or through a DynamoDB Local started for this command only.
 * Some names but not all is a mistake it refuses, rather than quietly using the local data.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type TableName, tableDefinitions } from '../functions/adapters/dynamodb/table-definitions';
import { type DataLock, readRuntimeInfo, tryLock } from './data-lock';
import { type RunningEmulator, startDynamoDbLocal } from './emulators';
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

/** The deployed tables the admin commands use (accounts, tokens, and articles to wake). */
export const DEPLOYED_TABLES: readonly TableName[] = ['accounts', 'apiTokens', 'articles'];

/** Some of the deployed table variables are set, not all. */
export class IncompleteDeploymentError extends Error {
  override readonly name = 'IncompleteDeploymentError';

  constructor(readonly missing: string[]) {
    const all = DEPLOYED_TABLES.map((table) => tableDefinitions[table].envVar).join(', ');
    super(
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set: set all of ${all} (the stack's *TableName outputs) to work on a deployment, or none of them to work on the local data.`,
    );
  }
}

/**
 * True when every deployed table variable is set (and INKPRESS_DATA_DIR, which asks for the
 * local data, is not); false when none is; IncompleteDeploymentError when only some are.
 */
export function usesDeployedTables(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.INKPRESS_DATA_DIR) return false;
  const variables = DEPLOYED_TABLES.map((table) => tableDefinitions[table].envVar);
  const missing = variables.filter((variable) => !env[variable]);
  if (missing.length === variables.length) return false;
  if (missing.length > 0) throw new IncompleteDeploymentError(missing);
  return true;
}

/** Points this process's environment at the account tables; call before using the repositories. */
export async function openAdminConnection(env: NodeJS.ProcessEnv = process.env): Promise<AdminConnection> {
  if (usesDeployedTables(env)) return { mode: 'deployed', close: async () => undefined };

  const dataDir = localDataDir(env);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const lock = tryLock(dataDir, 'admin');
    if ('release' in lock) return ownDynamoDb(dataDir, lock);
    if (lock.kind === 'runtime') {
      const info = readRuntimeInfo(dataDir);
      if (info?.pid === lock.pid) {
        await useLocalTables(info.dynamodbEndpoint);
        return { mode: 'running', close: async () => undefined };
      }
    }
    // Another admin command, or npm start starting up or stopping: wait for it.
    if (Date.now() > deadline) {
      throw new Error(`The data folder ${dataDir} is busy (${lock.kind}, pid ${lock.pid}); try again.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** No `npm start` on this data folder: a DynamoDB Local of our own for this command. */
async function ownDynamoDb(dataDir: string, lock: DataLock): Promise<AdminConnection> {
  let dynamodb: RunningEmulator | undefined;
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
