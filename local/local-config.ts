/**
 * Settings of local mode: where local data lives, the names of local resources, the environment
 * the functions see in the local runtime or the admin CLI, and how a function's handler is loaded.
 */
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
export function localDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.INKPRESS_DATA_DIR?.trim() || path.join(repoRoot, '.inkpress'));
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

/** Reads a whole-number setting from the environment; `fallback` when unset. */
export function numberFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}".`);
  return value;
}

/** AWS SDK settings that point every client of this process at the emulators. */
export function emulatorClientEnv(endpoints: { dynamodb: string; moto?: string }): Record<string, string> {
  const moto = endpoints.moto;
  return {
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    ...(moto
      ? { AWS_ENDPOINT_URL_SQS: moto, AWS_ENDPOINT_URL_KMS: moto, AWS_ENDPOINT_URL_SECRETS_MANAGER: moto }
      : {}),
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/**
 * The functions' environment in local mode: resource names from provisioning, emulator
 * endpoints, and local defaults that an explicitly set variable overrides.
 */
export function localFunctionEnv(
  resourceEnv: Record<string, string>,
  endpoints: { dynamodb: string; moto: string },
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  return {
    ...resourceEnv,
    ...emulatorClientEnv(endpoints),
    INKPRESS_LOCAL_MODE: 'true',
    INKPRESS_ALLOW_PRIVATE_URLS: env.INKPRESS_ALLOW_PRIVATE_URLS ?? 'true',
    POWERTOOLS_LOG_LEVEL: env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    POWERTOOLS_SERVICE_NAME: env.POWERTOOLS_SERVICE_NAME ?? 'inkpress',
  };
}

/** A function's `handler` export, loaded from its entry file on first use, as Lambda does at a cold start. */
export function loadHandler<H>(entry: string): H {
  // require() rather than import(): tsx and ts-jest both compile TypeScript entries this way.
  const { handler } = require(path.join(repoRoot, entry)) as { handler?: unknown };
  if (typeof handler !== 'function') throw new Error(`${entry} does not export a handler function.`);
  return handler as H;
}
