/**
 * The admin CLI's commands: argument parsing (node:util parseArgs) and what each command does
 * with the account use cases. Output is returned as text; the entry point prints it.
 */
import { parseArgs } from 'node:util';
import {
  type Account,
  type AccountStore,
  addCredits,
  createAccount,
  issueToken,
  revokeToken,
  setDailyLimit,
  type TokenStore,
} from '../functions/core/accounts';
import { NotFoundError } from '../functions/core/errors';
import { toWireTime } from '../functions/core/wire';

export const USAGE = `Usage: npm run --silent admin -- <command>

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
export class UsageError extends Error {}

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

const commandSpecs = {
  'account create': { required: ['name', 'credits'], optional: ['daily-limit', 'json'] },
  'account show': { required: ['account'], optional: [] },
  'credits add': { required: ['account', 'amount'], optional: [] },
  'limit set': { required: ['account', 'daily-limit'], optional: [] },
  'token create': { required: ['account'], optional: ['json'] },
  'token revoke': { required: ['token'], optional: [] },
} as const satisfies Record<string, { required: OptionName[]; optional: OptionName[] }>;

export type CommandName = keyof typeof commandSpecs;

export type ParsedCommand =
  | { command: 'help' }
  | { command: 'account create'; name: string; credits: number; dailyLimit?: number; json: boolean }
  | { command: 'account show'; accountId: string }
  | { command: 'credits add'; accountId: string; amount: number }
  | { command: 'limit set'; accountId: string; dailyLimit: number }
  | { command: 'token create'; accountId: string; json: boolean }
  | { command: 'token revoke'; token: string };

export function parseCommand(argv: string[]): ParsedCommand {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof optionSpecs; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: optionSpecs, allowPositionals: true, strict: true });
  } catch (error) {
    const message = firstLine(error instanceof Error ? error.message : String(error));
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/, '.'));
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) return { command: 'help' };
  const name = positionals.join(' ');
  if (!(name in commandSpecs)) throw new UsageError(`Unknown command "${name}".`);
  const command = name as CommandName;
  const spec: { required: readonly OptionName[]; optional: readonly OptionName[] } = commandSpecs[command];
  for (const option of Object.keys(values) as OptionName[]) {
    if (option !== 'help' && !spec.required.includes(option) && !spec.optional.includes(option)) {
      throw new UsageError(`"${command}" does not take --${option}.`);
    }
  }
  for (const option of spec.required) {
    const value = values[option];
    if (value === undefined || value === '') throw new UsageError(`"${command}" needs --${option}.`);
  }
  const text = (option: 'name' | 'account' | 'token') => (values[option] ?? '').trim();
  switch (command) {
    case 'account create':
      return {
        command,
        name: text('name'),
        credits: wholeNumber('credits', values.credits),
        ...(values['daily-limit'] !== undefined
          ? { dailyLimit: wholeNumber('daily-limit', values['daily-limit']) }
          : {}),
        json: values.json ?? false,
      };
    case 'account show':
      return { command, accountId: text('account') };
    case 'credits add':
      return { command, accountId: text('account'), amount: wholeNumber('amount', values.amount) };
    case 'limit set':
      return {
        command,
        accountId: text('account'),
        dailyLimit: wholeNumber('daily-limit', values['daily-limit']),
      };
    case 'token create':
      return { command, accountId: text('account'), json: values.json ?? false };
    case 'token revoke':
      return { command, token: text('token') };
  }
}

export interface AdminDeps {
  accounts: AccountStore;
  tokens: TokenStore;
  /**
   * Makes the account's articles waiting for credits (`not_enough_credits`) or for the daily
   * limit (`daily_limit_reached`) due again; returns a line to print.
   */
  afterAllowanceRaised?: (
    accountId: string,
    waitingFor: 'not_enough_credits' | 'daily_limit_reached',
  ) => Promise<string | undefined>;
}

/** Runs a parsed command; returns what to print on stdout. */
export async function runCommand(parsed: ParsedCommand, deps: AdminDeps): Promise<string> {
  switch (parsed.command) {
    case 'help':
      return USAGE;
    case 'account create': {
      const { account, token } = await createAccount(deps, {
        name: parsed.name,
        credits: parsed.credits,
        ...(parsed.dailyLimit !== undefined ? { dailyLimit: parsed.dailyLimit } : {}),
      });
      if (parsed.json) return JSON.stringify({ account_id: account.accountId, token });
      return [
        `Account ${account.accountId} created: "${account.name}", ${account.credits} credits, daily limit ${account.dailyLimit}.`,
        `Token (shown only now, keep it): ${token}`,
      ].join('\n');
    }
    case 'account show': {
      const account = await deps.accounts.get(parsed.accountId);
      if (!account) throw new NotFoundError('Account');
      return JSON.stringify(accountView(account), null, 2);
    }
    case 'credits add': {
      const account = await addCredits(deps, { accountId: parsed.accountId, amount: parsed.amount });
      const lines = [`Added ${parsed.amount} credits to ${account.accountId}: balance ${account.credits}.`];
      const followUp = await deps.afterAllowanceRaised?.(account.accountId, 'not_enough_credits');
      if (followUp) lines.push(followUp);
      return lines.join('\n');
    }
    case 'limit set': {
      const account = await setDailyLimit(deps, {
        accountId: parsed.accountId,
        dailyLimit: parsed.dailyLimit,
      });
      const lines = [`Daily limit of ${account.accountId} set to ${account.dailyLimit}.`];
      const followUp = await deps.afterAllowanceRaised?.(account.accountId, 'daily_limit_reached');
      if (followUp) lines.push(followUp);
      return lines.join('\n');
    }
    case 'token create': {
      const token = await issueToken(deps, parsed.accountId);
      return parsed.json ? JSON.stringify({ account_id: parsed.accountId, token }) : token;
    }
    case 'token revoke':
      await revokeToken(deps, parsed.token);
      return 'Token revoked.';
  }
}

/** What `account show` prints: never token hashes. */
export function accountView(account: Account) {
  return {
    account_id: account.accountId,
    name: account.name,
    credits: account.credits,
    daily_limit: account.dailyLimit,
    created_at: toWireTime(account.createdAt),
  };
}

function wholeNumber(option: string, value: string | undefined): number {
  const text = value?.trim() ?? '';
  if (!/^\d{1,15}$/.test(text)) {
    throw new UsageError(`--${option} must be a whole number of 0 or more, got "${value}".`);
  }
  return Number(text);
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
