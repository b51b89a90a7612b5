/**
 * `npm run --silent admin -- <command>`: accounts, credits and API tokens, with the account use
 * cases. It works on the deployed tables when all their names are in the environment, otherwise
 * on the local data folder: through the DynamoDB Local of a running `npm start` when there is
 * one, or through a DynamoDB Local started for this command only. Some names but not all is a
 * mistake it refuses, rather than quietly using the local data.
 * Exit codes: 0 done, 1 failed (one line on stderr), 2 wrong command line.
 */
import './process-defaults';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { accountStore, articleStore, tokenStore } from '../functions/adapters/dependencies';
import { type TableName, tableDefinitions } from '../functions/adapters/dynamodb/table-definitions';
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
import { lockDataFolder } from './data-lock';
import { MissingPrerequisiteError, startDynamoDbLocal } from './emulators';
import { dataPaths, emulatorClientEnv, LOCAL_PREFIX, LOCAL_REGION, localDataDir } from './local-config';
import { provisionTables } from './provision';

const USAGE = `Usage: npm run --silent admin -- <command>

  account create --name NAME --credits N [--daily-limit N] [--json]
  account show --account ID
  credits add --account ID --amount N
  limit set --account ID --daily-limit N
  token create --account ID [--json]
  token revoke --token TOKEN

Works on the local data (INKPRESS_DATA_DIR, default .inkpress/) whether or not npm start is
running. With ACCOUNTS_TABLE, API_TOKENS_TABLE and ARTICLES_TABLE set (and no
INKPRESS_DATA_DIR), it works on those deployed tables with the default AWS credentials; with
only some of them set it refuses to run.`;

/** Wrong command line: exit code 2. */
class UsageError extends Error {}
/** Known failures: exit code 1 with their message alone. */
class AdminError extends Error {}

const optionSpecs = {
  name: { type: 'string' },
  credits: { type: 'string' },
  'daily-limit': { type: 'string' },
  account: { type: 'string' },
  amount: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
type OptionName = keyof typeof optionSpecs;

const commands: Record<string, { required: OptionName[]; optional?: OptionName[] }> = {
  'account create': { required: ['name', 'credits'], optional: ['daily-limit', 'json'] },
  'account show': { required: ['account'] },
  'credits add': { required: ['account', 'amount'] },
  'limit set': { required: ['account', 'daily-limit'] },
  'token create': { required: ['account'], optional: ['json'] },
  'token revoke': { required: ['token'] },
};

function parseCommand(argv: string[]) {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof optionSpecs; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: optionSpecs, allowPositionals: true, strict: true });
  } catch (error) {
    const message = firstLine(error).replace(/\. To specify a positional argument.*$/, '.');
    throw new UsageError(message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) return undefined;
  const command = positionals.join(' ');
  const spec = commands[command];
  if (!spec) throw new UsageError(`Unknown command "${command}".`);
  for (const option of Object.keys(values) as OptionName[]) {
    if (option !== 'help' && !spec.required.includes(option) && !spec.optional?.includes(option)) {
      throw new UsageError(`"${command}" does not take --${option}.`);
    }
  }
  for (const option of spec.required) {
    if (!values[option]) throw new UsageError(`"${command}" needs --${option}.`);
  }
  const number = (option: 'credits' | 'amount' | 'daily-limit') => {
    const text = values[option]?.trim();
    if (text === undefined) return undefined;
    if (/^\d{1,15}$/.test(text)) return Number(text);
    throw new UsageError(`--${option} must be a whole number of 0 or more, got "${values[option]}".`);
  };
  return {
    command,
    name: values.name?.trim() ?? '',
    credits: number('credits') ?? 0,
    dailyLimit: number('daily-limit'),
    accountId: values.account?.trim() ?? '',
    amount: number('amount') ?? 0,
    token: values.token?.trim() ?? '',
    json: values.json ?? false,
  };
}

/** Runs a parsed command; returns what to print on stdout. */
async function runCommand(parsed: NonNullable<ReturnType<typeof parseCommand>>): Promise<string> {
  const deps = { accounts: accountStore(), tokens: tokenStore() };
  const { accountId, json } = parsed;
  /** Articles waiting for credits or the daily limit become due; the next sweep re-attempts them. */
  const wake = async (waitingFor: 'not_enough_credits' | 'daily_limit_reached') => {
    const clock = () => new Date();
    const count = await makeDeferralsDue({ articles: articleStore(), clock }, accountId, waitingFor);
    const reason = waitingFor === 'not_enough_credits' ? 'credits' : 'the daily limit';
    return `${count} article(s) waiting for ${reason} will be retried at the next sweep.`;
  };
  switch (parsed.command) {
    case 'account create': {
      const { dailyLimit } = parsed;
      const input = {
        name: parsed.name,
        credits: parsed.credits,
        ...(dailyLimit !== undefined ? { dailyLimit } : {}),
      };
      const { account, token } = await createAccount(deps, input);
      if (json) return JSON.stringify({ account_id: account.accountId, token });
      return [
        `Account ${account.accountId} created: "${account.name}", ${account.credits} credits, daily limit ${account.dailyLimit}.`,
        `Token (shown only now, keep it): ${token}`,
      ].join('\n');
    }
    case 'account show': {
      const account = await deps.accounts.get(accountId);
      if (!account) throw new NotFoundError('Account');
      // Never token hashes.
      const { name, credits, dailyLimit, createdAt } = account;
      const view = {
        account_id: accountId,
        name,
        credits,
        daily_limit: dailyLimit,
        created_at: toWireTime(createdAt),
      };
      return JSON.stringify(view, null, 2);
    }
    case 'credits add': {
      const account = await addCredits(deps, { accountId, amount: parsed.amount });
      const added = `Added ${parsed.amount} credits to ${accountId}: balance ${account.credits}.`;
      return `${added}\n${await wake('not_enough_credits')}`;
    }
    case 'limit set': {
      const account = await setDailyLimit(deps, { accountId, dailyLimit: parsed.dailyLimit ?? 0 });
      return `Daily limit of ${accountId} set to ${account.dailyLimit}.\n${await wake('daily_limit_reached')}`;
    }
    case 'token create': {
      const token = await issueToken(deps, accountId);
      return json ? JSON.stringify({ account_id: accountId, token }) : token;
    }
    default:
      await revokeToken(deps, parsed.token);
      return 'Token revoked.';
  }
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
  if (!env.INKPRESS_DATA_DIR && missing.length < variables.length) {
    if (missing.length === 0) return async () => undefined;
    throw new AdminError(
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set: set all of ${variables.join(', ')} (the stack's *TableName outputs) to work on a deployment, or none of them to work on the local data.`,
    );
  }
  const dataDir = localDataDir(env);
  const lock = await lockDataFolder(dataDir, 'admin', 60_000);
  if (!('release' in lock)) {
    if (!lock.dynamodbEndpoint)
      throw new Error(`The data folder ${dataDir} is busy (${lock.kind}, pid ${lock.pid}); try again.`);
    await useLocalTables(lock.dynamodbEndpoint);
    return async () => undefined;
  }
  const dynamodb = await startDynamoDbLocal({ dataDir: dataPaths(dataDir).dynamodb, fastStart: true }).catch(
    async (error: unknown) => {
      await lock.release();
      throw error;
    },
  );
  const close = async () => {
    await dynamodb.stop();
    await lock.release();
  };
  await useLocalTables(dynamodb.endpoint).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  return close;
}

async function useLocalTables(endpoint: string): Promise<void> {
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials });
  try {
    const { env } = await provisionTables(client, { prefix: LOCAL_PREFIX });
    Object.assign(process.env, env, emulatorClientEnv({ dynamodb: endpoint }));
  } finally {
    client.destroy();
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
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
    await print(process.stdout, await runCommand(parsed));
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
