/** Settings of local mode: the data folder, the local resources' names, the emulators' client settings, handler loading. */
import path from 'node:path';
import { runtimeSettings } from '../functions/shared/runtime-settings';

/** Root of the repository (the route table's `entry` paths are relative to it). */
export const repoRoot = path.resolve(__dirname, '..');

/** Prefix of the local tables, queues and key alias. */
export const LOCAL_PREFIX = 'inkpress-local';
export const LOCAL_REGION = 'us-east-1';
/** Stand-in AWS account id for ARNs in local events. */
export const LOCAL_ACCOUNT_ID = '000000000000';

export const localDefaults = {
  port: 3000,
  sweepSeconds: 60,
  /** Long-poll wait of the queue pollers (Lambda's event source uses up to 20 s). */
  pollWaitSeconds: 5,
  authorizerCacheSeconds: runtimeSettings.authorizerCacheSeconds,
  account: { name: 'Local developer', credits: 1000 },
} as const;

/** `$INKPRESS_DATA_DIR`, or `.inkpress/` in the repository (git-ignored). */
export function localDataDir(): string {
  return path.resolve(process.env.INKPRESS_DATA_DIR?.trim() || path.join(repoRoot, '.inkpress'));
}

export function dataPaths(dataDir: string) {
  return {
    dynamodb: path.join(dataDir, 'dynamodb'),
    moto: path.join(dataDir, 'moto'),
    token: path.join(dataDir, 'local-token'),
    /** Who owns the data folder now (see data-lock.ts). */
    runtime: path.join(dataDir, 'runtime.json'),
  };
}

/** AWS SDK settings that point every client of this process at the emulators. */
export function emulatorClientEnv(endpoints: { dynamodb: string; moto?: string }): Record<string, string> {
  const { dynamodb, moto } = endpoints;
  return {
    AWS_ENDPOINT_URL_DYNAMODB: dynamodb,
    ...(moto && {
      AWS_ENDPOINT_URL_SQS: moto,
      AWS_ENDPOINT_URL_KMS: moto,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: moto,
      AWS_ENDPOINT_URL_S3: moto,
    }),
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A function's `handler` export, loaded from its entry file on first use, as Lambda does at a cold start. */
export function loadHandler<H>(entry: string): H {
  // require() rather than import(): tsx and Jest (swc) both compile TypeScript entries this way.
  const { handler } = require(path.join(repoRoot, entry)) as { handler?: unknown };
  if (typeof handler !== 'function') throw new Error(`${entry} does not export a handler function.`);
  return handler as H;
}
