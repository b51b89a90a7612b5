/**
 * `npm run --silent admin -- <command>`: accounts, credits and API tokens (see admin-commands.ts).
 * Exit codes: 0 done, 1 failed (one line on stderr), 2 wrong command line.
 */
import './process-defaults';
import { accountStore, tokenStore } from '../functions/adapters/dependencies';
import { DomainError } from '../functions/core/errors';
import { parseCommand, runCommand, USAGE, UsageError } from './admin-commands';
import { openAdminConnection } from './admin-connection';
import { MissingPrerequisiteError } from './emulators';

async function main(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv);
  if (parsed.command === 'help') {
    await print(process.stdout, USAGE);
    return 0;
  }
  const connection = await openAdminConnection();
  try {
    const output = await runCommand(parsed, { accounts: accountStore(), tokens: tokenStore() });
    await print(process.stdout, output);
    return 0;
  } finally {
    await connection.close();
  }
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
    const known = error instanceof DomainError || error instanceof MissingPrerequisiteError;
    await print(
      process.stderr,
      known ? `error: ${oneLine(error)}` : `error: admin command failed: ${oneLine(error)}`,
    );
    process.exit(1);
  },
);
