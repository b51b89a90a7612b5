/**
 * A function's configuration, read from its environment once and validated as a whole: what it
 * requires follows from its entry in the route table (`access` in functions/routes.ts), the same
 * declaration the stack derives the function's environment and grants from. A missing or
 * malformed variable is one error that names it.
 */
import { type TableName, tableDefinitions } from '../adapters/dynamodb/table-definitions';
import { GENERATION_TIMINGS, type GenerationTimings } from '../core/articles/lifecycle-policy';
import { DEFAULT_RATE_LIMIT, type RateLimitPolicy } from '../core/rate-limit';
import type { FunctionAccess } from '../routes';
import { parseFlag } from './env';

export type Environment = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Table names by table; reading a table the function does not declare throws. */
export type TableNames = Readonly<Record<TableName, string>>;

export interface ModelSettings {
  /** Secrets Manager secret holding the API key (deployed). */
  secretArn?: string;
  /** The API key itself (local). */
  apiKey?: string;
  /** An OpenAI-compatible server instead of OpenAI. */
  baseURL?: string;
  timeoutMs: number;
  maxRetries: number;
  /** Provider model overrides of the two `ai_model` tiers. */
  gpt35Turbo?: string;
  gpt4?: string;
  /** OPENAI_IMAGE_MODEL (`gpt-image-1` when unset). */
  imageModel?: string;
}

export const SEARCH_PROVIDERS = ['searxng', 'brave', 'tavily'] as const;
export type SearchProvider = (typeof SEARCH_PROVIDERS)[number];

/** The web search provider of `research=web`. */
export interface SearchSettings {
  provider: SearchProvider;
  /** SearXNG's address (operator's own instance). */
  searxngUrl?: string;
  /** Secrets Manager secret holding the Brave or Tavily key (deployed). */
  secretArn?: string;
  /** The key itself (local). */
  apiKey?: string;
}

export interface Config {
  tables: TableNames;
  /** Set when the function sends to or consumes the generation queue. */
  generationQueueUrl?: string;
  /** Set when the function sends to or consumes the webhook queue. */
  webhookQueueUrl?: string;
  /** Set when the function uses the site-password key. */
  sitePasswordKeyId?: string;
  /** Set when the function takes tokens from the RateLimits table (every API route). */
  rateLimit?: RateLimitPolicy;
  /** Set when the function reads the language-model secret (the worker); undefined means the offline writer. */
  model?: ModelSettings;
  /** Private and plain-http site addresses allowed (local mode and tests only). */
  allowPrivateUrls: boolean;
  /** Responses carry Strict-Transport-Security (deployed). */
  hsts: boolean;
  /** Absolute API root for links in responses, instead of the request's host. */
  publicBaseUrl?: string;
  /** Set when a search provider is configured and the function's access declares `webSearch`. */
  search?: SearchSettings;
  /** Set when the function uses the article image bucket. */
  imageBucketName?: string;
}

const DEFAULT_MODEL_TIMEOUT_SECONDS = 40;
const DEFAULT_MODEL_RETRIES = 2;

/** Reads and validates what a function with this `access` needs; throws one ConfigError naming the variable. */
export function loadConfig(env: Environment, access: FunctionAccess): Config {
  const value = (name: string) => {
    const raw = env[name];
    return raw === undefined || raw === '' ? undefined : raw;
  };
  const required = (name: string, why: string) => {
    const raw = value(name);
    if (raw === undefined) throw new ConfigError(`Missing environment variable ${name} (${why}).`);
    return raw;
  };
  const number = (name: string, fallback: number, minimum: number, integer = false) => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const parsed = Number(raw);
    if (!Number.isFinite(parsed) || parsed < minimum || (integer && !Number.isInteger(parsed))) {
      throw new ConfigError(
        `Environment variable ${name} must be ${integer ? 'an integer' : 'a number'} >= ${minimum}, not "${raw}".`,
      );
    }
    return parsed;
  };
  const flag = (name: string) => {
    const parsed = parseFlag(value(name));
    if (parsed === 'invalid') {
      throw new ConfigError(`Environment variable ${name} must be true or false, not "${value(name)}".`);
    }
    return parsed ?? false;
  };

  const declared: Partial<Record<TableName, string>> = {};
  for (const name of Object.keys(access.tables) as TableName[]) {
    declared[name] = required(tableDefinitions[name].envVar, `the ${name} table`);
  }
  const config: Config = {
    tables: tableNames(declared),
    allowPrivateUrls: flag('INKPRESS_ALLOW_PRIVATE_URLS'),
    hsts: flag('INKPRESS_HSTS'),
    publicBaseUrl: value('PUBLIC_BASE_URL')?.replace(/\/+$/, ''),
  };
  if (access.sendsToQueue || access.consumesQueue) {
    config.generationQueueUrl = required('GENERATION_QUEUE_URL', 'the generation queue');
  }
  if (access.sendsToWebhookQueue || access.consumesWebhookQueue) {
    config.webhookQueueUrl = required('WEBHOOK_QUEUE_URL', 'the webhook queue');
  }
  if (access.sitePasswordKey) {
    config.sitePasswordKeyId = required('SITE_PASSWORD_KEY_ID', 'the site-password key');
  }
  if (access.imageBucket) {
    config.imageBucketName = required('IMAGE_BUCKET_NAME', 'the article image bucket');
  }
  if (access.tables.rateLimits) {
    config.rateLimit = {
      ratePerSecond: number('INKPRESS_RATE_LIMIT_PER_SECOND', DEFAULT_RATE_LIMIT.ratePerSecond, 0),
      burst: number('INKPRESS_RATE_LIMIT_BURST', DEFAULT_RATE_LIMIT.burst, 1),
    };
  }
  if (access.readsModelSecret) {
    const secretArn = value('OPENAI_SECRET_ARN');
    const apiKey = value('OPENAI_API_KEY');
    if (secretArn || apiKey) {
      config.model = {
        secretArn,
        apiKey,
        baseURL: value('OPENAI_BASE_URL'),
        timeoutMs: number('OPENAI_TIMEOUT_SECONDS', DEFAULT_MODEL_TIMEOUT_SECONDS, 1) * 1000,
        maxRetries: number('OPENAI_MAX_RETRIES', DEFAULT_MODEL_RETRIES, 0, true),
        gpt35Turbo: value('OPENAI_MODEL_GPT_3_5_TURBO'),
        gpt4: value('OPENAI_MODEL_GPT_4'),
        imageModel: value('OPENAI_IMAGE_MODEL'),
      };
    } else if (!flag('INKPRESS_LOCAL_MODE')) {
      throw new ConfigError(
        'No language model configured: set OPENAI_SECRET_ARN (deployed) or OPENAI_API_KEY (local).',
      );
    }
  }
  if (access.webSearch) {
    const search = searchSettings(value, access.webSearch === 'uses');
    if (search) config.search = search;
  }
  return config;
}

/**
 * The generation worker's lease and first retry delay: the deployed constants
 * (`GENERATION_TIMINGS`; the stack sets neither variable) unless the environment shortens them,
 * for tests of crashes and storage outages. Read by the worker alone, so the other functions'
 * bundles do not carry it.
 */
export function generationTimings(env: Environment): GenerationTimings {
  // (Not loadConfig's `number`: that would put this in every function's bundle.)
  const seconds = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const parsed = Number(raw);
    if (!Number.isFinite(parsed) || parsed < 1) {
      throw new ConfigError(`Environment variable ${name} must be a number >= 1, not "${raw}".`);
    }
    return parsed;
  };
  return {
    leaseMs: seconds('INKPRESS_GENERATION_LEASE_SECONDS', GENERATION_TIMINGS.leaseMs / 1000) * 1000,
    firstRetrySeconds: seconds('INKPRESS_GENERATION_RETRY_SECONDS', GENERATION_TIMINGS.firstRetrySeconds),
  };
}

/** SEARCH_PROVIDER and, for a function that searches, what that provider needs. */
function searchSettings(
  value: (name: string) => string | undefined,
  uses: boolean,
): SearchSettings | undefined {
  const provider = value('SEARCH_PROVIDER')?.toLowerCase();
  if (provider === undefined || provider === 'none') return undefined;
  if (!(SEARCH_PROVIDERS as readonly string[]).includes(provider)) {
    throw new ConfigError(
      `Environment variable SEARCH_PROVIDER must be one of ${SEARCH_PROVIDERS.join(', ')} (or unset), not "${provider}".`,
    );
  }
  const settings: SearchSettings = { provider: provider as SearchProvider };
  if (!uses) return settings;
  if (provider === 'searxng') {
    const url = value('SEARXNG_URL');
    if (url === undefined || !/^https?:\/\//i.test(url)) {
      throw new ConfigError(
        'SEARCH_PROVIDER is searxng: set SEARXNG_URL to its address (http:// or https://).',
      );
    }
    return { ...settings, searxngUrl: url };
  }
  const keyVar = provider === 'brave' ? 'BRAVE_SEARCH_API_KEY' : 'TAVILY_API_KEY';
  const secretArn = value('SEARCH_SECRET_ARN');
  const apiKey = value(keyVar);
  if (secretArn === undefined && apiKey === undefined) {
    throw new ConfigError(
      `SEARCH_PROVIDER is ${provider}: set ${keyVar} (local) or SEARCH_SECRET_ARN (deployed).`,
    );
  }
  return { ...settings, ...(secretArn ? { secretArn } : {}), ...(apiKey ? { apiKey } : {}) };
}

function tableNames(declared: Partial<Record<TableName, string>>): TableNames {
  const names = {} as Record<TableName, string>;
  for (const table of Object.keys(tableDefinitions) as TableName[]) {
    Object.defineProperty(names, table, {
      enumerable: true,
      get() {
        const name = declared[table];
        if (name === undefined) {
          throw new ConfigError(`The ${table} table is not in this function's access (functions/routes.ts).`);
        }
        return name;
      },
    });
  }
  return Object.freeze(names);
}

/** A setting the function's access must have declared (`loadConfig` set it); throws when it did not. */
export function declared<T>(value: T | undefined, what: string): T {
  if (value === undefined)
    throw new ConfigError(`${what} is not in this function's access (functions/routes.ts).`);
  return value;
}
