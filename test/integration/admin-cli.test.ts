/**
 * The admin CLI as a user runs it (a child process on a temporary INKPRESS_DATA_DIR): first
 * with no runtime (on the emulators INKPRESS_DYNAMODB_ENDPOINT names, under
 * INKPRESS_RESOURCE_PREFIX; and with neither, on a DynamoDB Local it starts on the data folder
 * itself), then through the running local runtime's DynamoDB Local and prefix, whose API checks
 * the tokens it prints. The runtime and the CLI use the global set-up's emulators under a prefix
 * of this file (test/support/attached-runtime.ts).
 *
 * Each command runs `local/admin-cli.ts` compiled once for this file by esbuild (a new `node`
 * process, its arguments, environment, output and exit code as with `npm run admin`), not through
 * tsx, whose start-up cost more than the command (~1.4 s of CPU against ~0.4 s, 2026-11-28). The
 * command as `npm run --silent admin` runs it is run by local-supervision-restart.test.ts. What a
 * command changed is read from the runtime's tables; `account show` itself is tested on its own.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { dataPaths } from '../../local/local-config';
import type { LocalRuntime } from '../../local/local-runtime';
import { sharedEmulators, startAttachedRuntime, uniquePrefix } from '../support/attached-runtime';
import * as deps from '../support/deps';
import { processesUsing } from '../support/npm-start';

const repoRoot = path.resolve(__dirname, '..', '..');
let cliDir: string;
let cli: string;
let dataDir: string;
let runtime: LocalRuntime | undefined;
/** The tables of this file in the shared emulators, as `npm start` with the same variables makes them. */
const prefix = uniquePrefix('admin');
const emulatorVariables = {
  INKPRESS_DYNAMODB_ENDPOINT: sharedEmulators().dynamodb,
  INKPRESS_MOTO_ENDPOINT: sharedEmulators().moto,
  INKPRESS_RESOURCE_PREFIX: prefix,
};

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * As a developer runs it on the local data: the deployed tables' variables are not set, the
 * emulators' are (as for the `npm start` of this data folder).
 */
function admin(...args: string[]): Promise<CliResult> {
  return adminWithEnv({ ...localEnv(), ...emulatorVariables, INKPRESS_DATA_DIR: dataDir }, ...args);
}

/** This process's environment without the deployed tables' variables. */
function localEnv(): NodeJS.ProcessEnv {
  const { ACCOUNTS_TABLE: _a, API_TOKENS_TABLE: _t, ARTICLES_TABLE: _r, ...env } = process.env;
  return env;
}

function adminWithEnv(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: repoRoot, env, timeout: 90_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function languagesStatus(token: string): Promise<number> {
  const response = await fetch(`${runtime?.baseUrl}/v1/languages`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return response.status;
}

async function show(accountId: string): Promise<Record<string, unknown>> {
  const result = await admin('account', 'show', '--account', accountId);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout);
}

/** The account as stored, read from the running runtime's tables. */
async function stored(accountId: string) {
  const account = await deps.accountStore().get(accountId);
  if (!account) throw new Error(`account ${accountId} not found`);
  return account;
}

let accountId: string;
let firstToken: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-admin-'));
  // Beside node_modules, which the bundle leaves out and loads as the CLI does; `__dirname` is
  // the CLI's folder, local/ (local-config.ts and emulators.ts find the repository and their
  // files from it).
  const cacheDir = path.join(repoRoot, 'node_modules', '.cache');
  mkdirSync(cacheDir, { recursive: true });
  cliDir = mkdtempSync(path.join(cacheDir, 'inkpress-admin-cli-'));
  cli = path.join(cliDir, 'admin-cli.cjs');
  await build({
    entryPoints: [path.join(repoRoot, 'local', 'admin-cli.ts')],
    outfile: cli,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    define: { __dirname: JSON.stringify(path.join(repoRoot, 'local')) },
    logLevel: 'silent',
  });
});

afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (cliDir) rmSync(cliDir, { recursive: true, force: true });
});

it('account create --json prints only the account id and token, with no runtime running', async () => {
  const result = await admin('account', 'create', '--name', 'Acme', '--credits', '5', '--json');
  expect(result).toMatchObject({ code: 0, stderr: '' });
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  const created = JSON.parse(result.stdout);
  expect(Object.keys(created).sort()).toEqual(['account_id', 'token']);
  expect(created.account_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(created.token).toMatch(/^ink_[A-Za-z0-9_-]{43}$/);
  accountId = created.account_id;
  firstToken = created.token;
}, 120_000);

it('with no runtime running and no emulator set, it starts DynamoDB Local on the data folder for the command, and stops it', async () => {
  const own = mkdtempSync(path.join(os.tmpdir(), 'inkpress-admin-own-'));
  try {
    const result = await adminWithEnv(
      { ...localEnv(), INKPRESS_DATA_DIR: own },
      'account',
      'create',
      '--name',
      'Own',
      '--credits',
      '1',
      '--json',
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(Object.keys(JSON.parse(result.stdout)).sort()).toEqual(['account_id', 'token']);
    // Its tables are in the folder's DynamoDB data, and nothing runs on the folder any more.
    const tables = dataPaths(own).dynamodb;
    expect(existsSync(tables) && readdirSync(tables).some((file) => file.endsWith('.db'))).toBe(true);
    expect(processesUsing(own)).toEqual([]);
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
}, 120_000);

describe('with the local runtime running on the same data folder', () => {
  beforeAll(async () => {
    runtime = await startAttachedRuntime({
      prefix,
      port: 0,
      dataDir,
      sweepSeconds: 0,
      firstSweepAfterMs: 60_000,
      authorizerCacheSeconds: 0,
      log: () => undefined,
    });
  }, 120_000);

  it('the token it printed works against the API', async () => {
    expect(await languagesStatus(firstToken)).toBe(200);
  });

  it('account show prints the account, never token hashes', async () => {
    const account = await show(accountId);
    expect(account).toEqual({
      account_id: accountId,
      name: 'Acme',
      credits: 5,
      daily_limit: 100,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });
  }, 60_000);

  it('credits add increases the balance', async () => {
    const result = await admin('credits', 'add', '--account', accountId, '--amount', '7');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('balance 12');
    expect((await stored(accountId)).credits).toBe(12);
  }, 60_000);

  it('credits add refuses a balance past 15 digits and changes nothing (the record stays readable)', async () => {
    const before = (await stored(accountId)).credits;
    const result = await admin('credits', 'add', '--account', accountId, '--amount', '999999999999999');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('The balance may not pass 999999999999999 credits.');
    expect((await show(accountId)).credits).toBe(before);
  }, 60_000);

  it('limit set raises the daily limit and wakes the articles waiting for it', async () => {
    const created = JSON.parse(
      (
        await admin(
          'account',
          'create',
          '--name',
          'Limited',
          '--credits',
          '50',
          '--daily-limit',
          '1',
          '--json',
        )
      ).stdout,
    );
    const articleStatuses: string[] = [];
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${runtime?.baseUrl}/v1/articles/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${created.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ keyword: 'limits', h2_count: 1, ai_model: 'gpt-3.5-turbo', language: 'en' }),
      });
      const { article_url: url } = (await response.json()) as { article_url: string };
      const record = (await (
        await fetch(url, { headers: { Authorization: `Bearer ${created.token}` } })
      ).json()) as {
        status: string;
      };
      articleStatuses.push(record.status);
    }
    expect(articleStatuses[1]).toBe('daily_limit_reached');

    const result = await admin('limit', 'set', '--account', created.account_id, '--daily-limit', '5');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`Daily limit of ${created.account_id} set to 5.`);
    expect(result.stdout).toContain(
      '1 article(s) waiting for the daily limit will be retried at the next sweep.',
    );
    expect((await stored(created.account_id)).dailyLimit).toBe(5);
  }, 60_000);

  it('token create issues a second working token; token revoke makes it rejected', async () => {
    const created = await admin('token', 'create', '--account', accountId);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^ink_/);
    expect(await languagesStatus(token)).toBe(200);

    const revoked = await admin('token', 'revoke', '--token', token);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(await languagesStatus(token)).toBe(401);
    expect(await languagesStatus(firstToken)).toBe(200);
  }, 60_000);

  it('account create without --json prints the token once, in words', async () => {
    const result = await admin('account', 'create', '--name', 'Beta', '--credits', '0', '--daily-limit', '3');
    expect(result.code).toBe(0);
    const token = /Token[^:]*: (ink_\S+)/.exec(result.stdout)?.[1] ?? '';
    expect(await languagesStatus(token)).toBe(200);
    const id = /Account (\S+) created/.exec(result.stdout)?.[1] ?? '';
    expect(await stored(id)).toMatchObject({ name: 'Beta', credits: 0, dailyLimit: 3 });
  }, 60_000);

  describe('on deployed tables (ACCOUNTS_TABLE, API_TOKENS_TABLE, ARTICLES_TABLE; no INKPRESS_DATA_DIR)', () => {
    const deployedEnv = (): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ACCOUNTS_TABLE: runtime?.resources.tableNames.accounts,
      API_TOKENS_TABLE: runtime?.resources.tableNames.apiTokens,
      ARTICLES_TABLE: runtime?.resources.tableNames.articles,
      AWS_ENDPOINT_URL_DYNAMODB: runtime?.endpoints.dynamodb,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'deployedtest',
      AWS_SECRET_ACCESS_KEY: 'deployedtest',
    });

    it.each([
      [['ARTICLES_TABLE'], 'ARTICLES_TABLE is not set'],
      [['API_TOKENS_TABLE'], 'API_TOKENS_TABLE is not set'],
      [['ACCOUNTS_TABLE', 'ARTICLES_TABLE'], 'ACCOUNTS_TABLE, ARTICLES_TABLE are not set'],
    ])(
      'refuses to run when %j is missing, naming it, and changes nothing',
      async (missing, named) => {
        const before = await stored(accountId);
        const env = deployedEnv();
        for (const variable of missing) delete env[variable];
        const result = await adminWithEnv(env, 'credits', 'add', '--account', accountId, '--amount', '9');
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toContain(`error: ${named}`);
        expect(result.stderr).toContain('ACCOUNTS_TABLE, API_TOKENS_TABLE, ARTICLES_TABLE');
        expect((await stored(accountId)).credits).toBe(before.credits);
      },
      60_000,
    );

    it('refuses to run when INKPRESS_DATA_DIR is set as well, naming both, and changes nothing', async () => {
      const before = await stored(accountId);
      const env = { ...deployedEnv(), INKPRESS_DATA_DIR: dataDir };
      const result = await adminWithEnv(env, 'credits', 'add', '--account', accountId, '--amount', '9');
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        'error: INKPRESS_DATA_DIR and ACCOUNTS_TABLE, API_TOKENS_TABLE, ARTICLES_TABLE are both set',
      );
      expect((await stored(accountId)).credits).toBe(before.credits);
    }, 60_000);

    it('uses those tables through the standard AWS configuration', async () => {
      const env = deployedEnv();
      const created = await adminWithEnv(
        env,
        'account',
        'create',
        '--name',
        'Deployed',
        '--credits',
        '1',
        '--json',
      );
      expect(created).toMatchObject({ code: 0, stderr: '' });
      const { account_id: id, token } = JSON.parse(created.stdout);
      expect(await languagesStatus(token)).toBe(200);
      const added = await adminWithEnv(env, 'credits', 'add', '--account', id, '--amount', '2');
      expect(added.code).toBe(0);
      expect(added.stdout).toContain('balance 3');
      expect(added.stdout).toContain('0 article(s) waiting for credits will be retried at the next sweep.');
    }, 60_000);
  });
});

describe('errors: one line on stderr, never a stack trace', () => {
  it.each([
    [['account', 'create', '--name', 'x'], /needs --credits/],
    [['account', 'create', '--name', 'x', '--credits', 'many'], /--credits must be a whole number/],
    [['account', 'show', '--account', 'a', '--amount', '3'], /does not take --amount/],
    [['account', 'remove'], /Unknown command "account remove"/],
    [['credits', 'add', '--account', 'a', '--amount', '5', '--bogus'], /Unknown option '--bogus'/],
  ])(
    'usage error %j exits 2',
    async (args, message) => {
      const result = await admin(...args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    },
    60_000,
  );

  it.each([
    [['account', 'show', '--account', '00000000-0000-4000-8000-00000000dead'], 'error: Account not found.'],
    [['token', 'revoke', '--token', 'ink_unknown'], 'error: Token not found.'],
    [
      ['credits', 'add', '--account', '00000000-0000-4000-8000-00000000dead', '--amount', '1'],
      'error: Account not found.',
    ],
  ])(
    '%j exits 1',
    async (args, line) => {
      const result = await admin(...args);
      expect(result).toEqual({ code: 1, stdout: '', stderr: `${line}\n` });
    },
    60_000,
  );

  it.each(['--help', 'help'])(
    '%s prints the usage and exits 0',
    async (word) => {
      const result = await admin(word);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('account create --name NAME --credits N [--daily-limit N] [--json]');
    },
    60_000,
  );
});
