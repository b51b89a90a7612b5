/** Settings of local mode: the data folder, the local resources' names, the emulators' client settings, handler loading. */
import path from 'node:path';
import { runtimeSettings } from '../functions/shared/runtime-settings';

/** Root of the repository (the route table's `entry` paths are relative to it). */
export const repoRoot = path.resolve(__dirname, '..');

/** Prefix of the local tables, queues, key alias and bucket (unless `INKPRESS_RESOURCE_PREFIX` names another). */
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

/**
 * A resource prefix: lower-case letters, digits and hyphens, starting with a letter, at most 40
 * characters, so that every name made from it is valid (the S3 bucket's is the strictest: lower
 * case, at most 63 characters) and two prefixes never make the same name.
 */
export function checkResourcePrefix(prefix: string): string {
  if (!/^[a-z][a-z0-9-]{0,39}$/.test(prefix) || prefix.endsWith('-')) {
    throw new Error(
      `The resource prefix "${prefix}" is not valid: use lower-case letters, digits and hyphens, starting with a letter and not ending with a hyphen, at most 40 characters.`,
    );
  }
  return prefix;
}

/** Emulators that run already (DynamoDB Local, and moto_server for SQS, KMS and S3). */
export interface AttachedEmulators {
  dynamodb: string;
  moto: string;
}

/** The variables of local mode that choose the emulators and the resources' names (see docs/configuration.md). */
export const EMULATOR_VARIABLES = {
  dynamodb: 'INKPRESS_DYNAMODB_ENDPOINT',
  moto: 'INKPRESS_MOTO_ENDPOINT',
  prefix: 'INKPRESS_RESOURCE_PREFIX',
} as const;

/**
 * `INKPRESS_DYNAMODB_ENDPOINT` and `INKPRESS_MOTO_ENDPOINT` (both or neither: attach to
 * emulators that run already instead of starting them) and `INKPRESS_RESOURCE_PREFIX` (default
 * `inkpress-local`), as `npm start` and the admin CLI read them; throws a message naming the
 * variable that is wrong.
 */
export function emulatorSettingsFromEnv(env: NodeJS.ProcessEnv): {
  attach?: AttachedEmulators;
  prefix: string;
} {
  const read = (name: string) => env[name]?.trim() || undefined;
  const prefixValue = read(EMULATOR_VARIABLES.prefix);
  const prefix = prefixValue === undefined ? LOCAL_PREFIX : checkPrefixVariable(prefixValue);
  const dynamodb = read(EMULATOR_VARIABLES.dynamodb);
  const moto = read(EMULATOR_VARIABLES.moto);
  if (dynamodb === undefined && moto === undefined) return { prefix };
  if (dynamodb === undefined || moto === undefined) {
    const [set, unset] =
      dynamodb === undefined
        ? [EMULATOR_VARIABLES.moto, EMULATOR_VARIABLES.dynamodb]
        : [EMULATOR_VARIABLES.dynamodb, EMULATOR_VARIABLES.moto];
    throw new Error(
      `${set} is set but ${unset} is not: set both to use emulators that run already, or neither to let Inkpress start its own.`,
    );
  }
  return {
    prefix,
    attach: {
      dynamodb: checkEndpoint(EMULATOR_VARIABLES.dynamodb, dynamodb),
      moto: checkEndpoint(EMULATOR_VARIABLES.moto, moto),
    },
  };
}

function checkPrefixVariable(value: string): string {
  try {
    return checkResourcePrefix(value);
  } catch (error) {
    throw new Error(`${EMULATOR_VARIABLES.prefix}: ${messageOf(error)}`);
  }
}

/** An http(s) URL with no path, query or credentials, as the AWS SDK takes an endpoint. */
function checkEndpoint(name: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const plain =
    url !== undefined &&
    ['http:', 'https:'].includes(url.protocol) &&
    url.pathname === '/' &&
    url.search === '' &&
    url.username === '' &&
    url.password === '';
  if (!url || !plain) {
    throw new Error(`${name} must be an http(s) URL such as http://127.0.0.1:8000, got "${value}".`);
  }
  return url.origin;
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
