/**
 * `npm run --silent admin -- <command>`: accounts, credits and API tokens (see admin-commands.ts).
 * Exit codes: 0 done, 1 failed (one line on stderr), 2 wrong command line.
 */
import './process-defaults';
import { accountStore, tokenStore } from '../functions/composition/accounts';
import { articleStore } from '../functions/composition/articles';
import { makeDeferralsDue } from '../functions/core/articles/sweep-articles';
import { DomainError } from '../functions/core/errors';
import { loadConfig } from '../functions/shared/config';
import { parseCommand, runCommand, USAGE, UsageError } from './admin-commands';
import { DEPLOYED_TABLES, IncompleteDeploymentError, openAdminConnection } from './admin-connection';
import { MissingPrerequisiteError } from './emulators';

async function main(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv);
  if (parsed.command === 'help') {
    await print(process.stdout, USAGE);
    return 0;
  }
  const connection = await openAdminConnection();
  try {
    const config = loadConfig(process.env, {
      tables: Object.fromEntries(DEPLOYED_TABLES.map((table) => [table, []])),
    });
    const output = await runCommand(parsed, {
      accounts: accountStore(config),
      tokens: tokenStore(config),
      afterAllowanceRaised: (accountId, waitingFor) =>
        makeDeferredArticlesDue(articleStore(config), accountId, waitingFor),
    });
    await print(process.stdout, output);
    return 0;
  } finally {
    await connection.close();
  }
}

/** Articles waiting for credits or the daily limit become due; the next sweep re-attempts them. */
async function makeDeferredArticlesDue(
  articles: ReturnType<typeof articleStore>,
  accountId: string,
  waitingFor: 'not_enough_credits' | 'daily_limit_reached',
): Promise<string> {
  const count = await makeDeferralsDue({ articles, clock: () => new Date() }, accountId, waitingFor);
  const reason = waitingFor === 'not_enough_credits' ? 'credits' : 'the daily limit';
  return `${count} article(s) waiting for ${reason} will be retried at the next sweep.`;
}

function print(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(`${text}\n`, () => resolve()));
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    if (error instanceof UsageError) {
      await print(process.stderr, `error: ${error.message} (see: npm run --silent admin -- --help)`);
      process.exit(2);
    }
    const known =
      error instanceof DomainError ||
      error instanceof MissingPrerequisiteError ||
      error instanceof IncompleteDeploymentError;
    await print(
      process.stderr,
      known ? `error: ${oneLine(error)}` : `error: admin command failed: ${oneLine(error)}`,
    );
    process.exit(1);
  },
);
