/**
 * `npm run --silent admin -- <command>`: accounts, credits and API tokens, with the account use
 * cases. It works on the deployed tables when all their names are in the environment, otherwise
 * on the local data folder: through the DynamoDB Local of a running `npm start` when there is
 * one (with its resource prefix), through the DynamoDB Local at `INKPRESS_DYNAMODB_ENDPOINT`
 * when that is set (the emulators `npm start` attaches to), or through a DynamoDB Local started
 * for this command only. Some names but not all, or
 * names and INKPRESS_DATA_DIR, is a mistake it refuses, rather than guess which data is meant.
 * Exit codes: 0 done, 1 failed (one line on stderr), 2 wrong command line.
 */
import './process-defaults';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type TableName, tableDefinitions } from '../functions/adapters/dynamodb/table-definitions';
import { accountStore, tokenStore } from '../functions/composition/accounts';
import { articleStore } from '../functions/composition/articles';
import {
  addCredits,
  createAccount,
  issueToken,
  revokeToken,
  setDailyLimit,
} from '../functions/core/accounts';
import { makeDeferralsDue } from '../functions/core/articles/sweep-articles';
import { DomainError, NotFoundError } from '../functions/core/errors';
import { toWireTime } from '../functions/core/wire';
import { loadConfig } from '../functions/shared/config';
import { lockDataFolder } from './data-lock';
import { MissingPrerequisiteError, type RunningEmulator, startDynamoDbLocal } from './emulators';
import {
  dataPaths,
  emulatorClientEnv,
  emulatorSettingsFromEnv,
  LOCAL_PREFIX,
  localDataDir,
  messageOf,
} from './local-config';
import { provisionTables } from './provision';

const USAGE = `Usage: npm run --silent admin -- <command>

  account create --name NAME --credits N [--daily-limit N] [--json]
  account show --account ID
  credits add --account ID --amount N
  limit set --account ID --daily-limit N
  token create --account ID [--json]
  token revoke --token TOKEN

Works on the local data (INKPRESS_DATA_DIR, default .inkpress/) whether or not npm start is
running (with INKPRESS_DYNAMODB_ENDPOINT and INKPRESS_RESOURCE_PREFIX when npm start uses
them and is not running). With ACCOUNTS_TABLE, API_TOKENS_TABLE and ARTICLES_TABLE set, it works on those
deployed tables with the default AWS credentials; with only some of them set, or with
INKPRESS_DATA_DIR set as well, it refuses to run.`;

/** Wrong command line: exit code 2. */
class UsageError extends Error {}
/** Known failures: exit code 1 with their message alone. */
class AdminError extends Error {}

interface Input {
  name: string;
  credits: number;
  dailyLimit?: number;
  accountId: string;
  amount: number;
  token: string;
  json: boolean;
}

/** The stores the commands use, built once the environment names the tables. */
function openStores() {
  const config = loadConfig(process.env, {
    tables: Object.fromEntries(DEPLOYED_TABLES.map((table) => [table, []])),
  });
  return { accounts: accountStore(config), tokens: tokenStore(config), articles: articleStore(config) };
}
type Stores = ReturnType<typeof openStores>;

/** Articles waiting for credits or the daily limit become due; the next sweep re-attempts them. */
async function wake(
  stores: Stores,
  accountId: string,
  waitingFor: 'not_enough_credits' | 'daily_limit_reached',
) {
  const count = await makeDeferralsDue(
    { articles: stores.articles, clock: () => new Date() },
    accountId,
    waitingFor,
  );
  const reason = waitingFor === 'not_enough_credits' ? 'credits' : 'the daily limit';
  return `${count} article(s) waiting for ${reason} will be retried at the next sweep.`;
}

/** What each command of USAGE does; it returns what to print on stdout. */
const commands: Record<string, (input: Input, stores: Stores) => Promise<string>> = {
  'account create': async ({ name, credits, dailyLimit, json }, stores) => {
    const input = { name, credits, ...(dailyLimit !== undefined ? { dailyLimit } : {}) };
    const { account, token } = await createAccount(stores, input);
    if (json) return JSON.stringify({ account_id: account.accountId, token });
    const created = `Account ${account.accountId} created: "${account.name}", ${account.credits} credits, daily limit ${account.dailyLimit}.`;
    return `${created}\nToken (shown only now, keep it): ${token}`;
  },
  'account show': async ({ accountId }, stores) => {
    const account = await stores.accounts.get(accountId);
    if (!account) throw new NotFoundError('Account');
    const { name, credits, dailyLimit: daily_limit, createdAt } = account; // never token hashes
    const view = { account_id: accountId, name, credits, daily_limit, created_at: toWireTime(createdAt) };
    return JSON.stringify(view, null, 2);
  },
  'credits add': async ({ accountId, amount }, stores) => {
    const { credits } = await addCredits(stores, { accountId, amount });
    return `Added ${amount} credits to ${accountId}: balance ${credits}.\n${await wake(stores, accountId, 'not_enough_credits')}`;
  },
  'limit set': async ({ accountId, dailyLimit = 0 }, stores) => {
    const account = await setDailyLimit(stores, { accountId, dailyLimit });
    return `Daily limit of ${accountId} set to ${account.dailyLimit}.\n${await wake(stores, accountId, 'daily_limit_reached')}`;
  },
  'token create': async ({ accountId, json }, stores) => {
    const token = await issueToken(stores, accountId);
    return json ? JSON.stringify({ account_id: accountId, token }) : token;
  },
  'token revoke': async ({ token }, stores) => {
    await revokeToken(stores, token);
    return 'Token revoked.';
  },
};

/** The options of each command, from USAGE: `[--x]` is optional. */
const accepted = new Map(
  USAGE.split('\n')
    .filter((line) => /^ {2}\w/.test(line))
    .map((line) => {
      const words = line.trim().split(' ');
      return [words.slice(0, 2).join(' '), words.filter((word) => /^\[?--/.test(word))];
    }),
);

/** The command and its input; undefined for `--help`, `help` or no command. */
function parseCommand(argv: string[]) {
  const text = { type: 'string' } as const;
  const options = {
    name: text,
    credits: text,
    'daily-limit': text,
    account: text,
    amount: text,
    token: text,
  };
  const flags = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const { values, positionals } = (() => {
    try {
      return parseArgs({
        args: argv,
        options: { ...options, ...flags },
        allowPositionals: true,
        strict: true,
      });
    } catch (error) {
      throw new UsageError(firstLine(error).replace(/\. To specify a positional argument.*$/, '.'));
    }
  })();
  if (values.help || positionals.length === 0 || positionals.join(' ') === 'help') return undefined;
  const name = positionals.join(' ');
  const run = commands[name];
  const allowed = accepted.get(name) ?? [];
  if (!run) throw new UsageError(`Unknown command "${name}".`);
  for (const option of Object.keys(values).filter((each) => each !== 'help')) {
    if (!allowed.some((word) => word.replace(/[[\]]/g, '') === `--${option}`)) {
      throw new UsageError(`"${name}" does not take --${option}.`);
    }
  }
  for (const option of allowed.filter((word) => !word.startsWith('['))) {
    if (!values[option.slice(2) as keyof typeof options]) throw new UsageError(`"${name}" needs ${option}.`);
  }
  const number = (option: 'credits' | 'amount' | 'daily-limit') => {
    const value = values[option]?.trim();
    if (value === undefined || /^\d{1,15}$/.test(value))
      return value === undefined ? undefined : Number(value);
    throw new UsageError(`--${option} must be a whole number of 0 or more, got "${values[option]}".`);
  };
  const input: Input = {
    name: values.name?.trim() ?? '',
    credits: number('credits') ?? 0,
    dailyLimit: number('daily-limit'),
    accountId: values.account?.trim() ?? '',
    amount: number('amount') ?? 0,
    token: values.token?.trim() ?? '',
    json: values.json ?? false,
  };
  return (stores: Stores) => run(input, stores);
}

/** The deployed tables the admin commands use (accounts, tokens, and articles to wake). */
const DEPLOYED_TABLES: TableName[] = ['accounts', 'apiTokens', 'articles'];

/**
 * Points this process's environment at the tables to use, before the repositories are built;
 * returns what to do when the command is done.
 */
async function openTables(env: NodeJS.ProcessEnv): Promise<() => Promise<void>> {
  const variables = DEPLOYED_TABLES.map((table) => tableDefinitions[table].envVar);
  const missing = variables.filter((variable) => !env[variable]);
  const named = variables.filter((variable) => env[variable]);
  if (env.INKPRESS_DATA_DIR?.trim() && named.length > 0) {
    throw new AdminError(
      `INKPRESS_DATA_DIR and ${named.join(', ')} are both set: to work on a deployment, unset INKPRESS_DATA_DIR and set all of ${variables.join(', ')}; to work on the local data, unset ${named.join(', ')}.`,
    );
  }
  if (named.length > 0) {
    if (missing.length === 0) return async () => undefined;
    throw new AdminError(
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set: set all of ${variables.join(', ')} (the stack's *TableName outputs) to work on a deployment, or none of them to work on the local data.`,
    );
  }
  let settings: ReturnType<typeof emulatorSettingsFromEnv>;
  try {
    settings = emulatorSettingsFromEnv(env);
  } catch (error) {
    throw new AdminError(messageOf(error));
  }
  const dataDir = localDataDir();
  const lock = await lockDataFolder(dataDir, 'admin', 60_000);
  if (!('release' in lock)) {
    if (!lock.dynamodbEndpoint)
      throw new Error(`The data folder ${dataDir} is busy (${lock.kind}, pid ${lock.pid}); try again.`);
    // The running npm start's tables, whatever this shell's variables say.
    await useLocalTables(lock.dynamodbEndpoint, lock.prefix ?? LOCAL_PREFIX);
    return async () => undefined;
  }
  let dynamodb: RunningEmulator | undefined;
  const close = async () => {
    await dynamodb?.stop();
    await lock.release();
  };
  try {
    if (settings.attach) {
      await useLocalTables(settings.attach.dynamodb, settings.prefix);
      return close;
    }
    dynamodb = await startDynamoDbLocal({ dataDir: dataPaths(dataDir).dynamodb, fastStart: true });
    await useLocalTables(dynamodb.endpoint, settings.prefix);
    return close;
  } catch (error) {
    await close();
    throw error;
  }
}

async function useLocalTables(endpoint: string, prefix: string): Promise<void> {
  Object.assign(process.env, emulatorClientEnv({ dynamodb: endpoint }));
  const client = new DynamoDBClient();
  try {
    Object.assign(process.env, (await provisionTables(client, { prefix })).env);
  } finally {
    client.destroy();
  }
}

function firstLine(error: unknown): string {
  return messageOf(error).split('\n')[0] ?? '';
}

function print(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(`${text}\n`, () => resolve()));
}

async function main(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv);
  if (!parsed) {
    await print(process.stdout, USAGE);
    return 0;
  }
  const close = await openTables(process.env);
  try {
    await print(process.stdout, await parsed(openStores()));
    return 0;
  } finally {
    await close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    if (error instanceof UsageError) {
      await print(process.stderr, `error: ${error.message} (see: npm run --silent admin -- --help)`);
      process.exit(2);
    }
    const known = [DomainError, MissingPrerequisiteError, AdminError].some((type) => error instanceof type);
    await print(process.stderr, `error: ${known ? '' : 'admin command failed: '}${firstLine(error)}`);
    process.exit(1);
  },
);
