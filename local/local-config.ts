/**
 * Settings of local mode: where local data lives, the names of local resources, and the
 * environment the functions see when they run in the local runtime or the admin CLI.
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
  host: '127.0.0.1',
  sweepSeconds: 60,
  /** Long-poll wait of the queue poller (Lambda's event source uses up to 20 s). */
  pollWaitSeconds: 5,
  /**
   * Visibility given back to a failed message so that it is retried after seconds, not after
   * the deployed visibility timeout (30 min); redrive to the DLQ still follows maxReceiveCount.
   */
  authorizerCacheSeconds: runtimeSettings.authorizerCacheSeconds,
  account: { name: 'Local developer', credits: 1000 },
} as const;

/** `$INKPRESS_DATA_DIR`, or `.inkpress/` in the repository (git-ignored). */
export function localDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.INKPRESS_DATA_DIR?.trim();
  return path.resolve(configured ? configured : path.join(repoRoot, '.inkpress'));
}

export function dataPaths(dataDir: string) {
  return {
    dynamodb: path.join(dataDir, 'dynamodb'),
    moto: path.join(dataDir, 'moto'),
    token: path.join(dataDir, 'local-token'),
    runtime: path.join(dataDir, 'runtime.json'),
    lock: path.join(dataDir, 'dynamodb.lock'),
  };
}

/** Reads a whole-number setting from the environment; `fallback` when unset. */
export function numberFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a whole number, got "${raw}".`);
  }
  return value;
}

/** AWS SDK settings that point every client of this process at the emulators. */
export function emulatorClientEnv(endpoints: { dynamodb: string; moto?: string }): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    ...(endpoints.moto
      ? {
          AWS_ENDPOINT_URL_SQS: endpoints.moto,
          AWS_ENDPOINT_URL_KMS: endpoints.moto,
          AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.moto,
        }
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

/** Which language model generation uses, as printed at start-up. */
export function languageModelDescription(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OPENAI_API_KEY) {
    return env.OPENAI_BASE_URL ? `OpenAI-compatible API at ${env.OPENAI_BASE_URL}` : 'OpenAI API';
  }
  return 'offline writer (no OPENAI_API_KEY set: articles are placeholder text)';
}
