/**
 * `npm run --silent sam-env -- [--host NAME] [--model] [--out env.json]`: the `--env-vars` file of
 * `sam local invoke` (template synthesized with `-c samLocal=true`) that points every function at
 * the tables, queues, key and emulators of the running `npm start` (on `$INKPRESS_DATA_DIR`).
 * `--host` replaces 127.0.0.1 (or localhost) in its addresses, for a container that reaches this machine by
 * another name (Docker Desktop: `host.docker.internal`; Linux: keep 127.0.0.1 and run SAM with
 * `--docker-network host`). The worker uses the offline writer; `--model` passes this shell's
 * `OPENAI_API_KEY` and `OPENAI_BASE_URL` instead. `--out` writes the file only when there is one to
 * write (a shell redirect leaves an empty file behind on failure); without it, it is printed.
 * Exit codes: 0 written or printed, 1 no `npm start` running.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SAM_LOCAL_VARIABLES } from '../lib/constructs/sam-local';
import { type Owner, runningRuntime } from './data-lock';
import { localDataDir } from './local-config';

/** Of the AWS SDK's variables, the endpoints only: SAM sets region and credentials itself. */
const passed = (name: string) =>
  !name.startsWith('AWS_') || SAM_LOCAL_VARIABLES.some((variable) => variable === name);

/** SAM's env file for a running runtime: one `Parameters` object for every function. */
export function samEnvFile(
  owner: Owner,
  options: { host?: string; model?: boolean } = {},
): { Parameters: Record<string, string> } {
  const host = options.host ?? '127.0.0.1';
  const parameters: Record<string, string> = {
    ...Object.fromEntries(Object.entries(owner.functionEnvironment ?? {}).filter(([name]) => passed(name))),
    INKPRESS_LOCAL_MODE: 'true',
    INKPRESS_ALLOW_PRIVATE_URLS: 'true',
    INKPRESS_HSTS: 'false',
    // SAM turns the secret's reference into its logical id, which would read as an ARN: none.
    OPENAI_SECRET_ARN: '',
  };
  if (options.model) {
    for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL']) {
      const value = process.env[name];
      if (value) parameters[name] = value;
    }
  }
  for (const [name, value] of Object.entries(parameters)) {
    // Emulators given with INKPRESS_*_ENDPOINT may be named localhost.
    parameters[name] = value.replace(/\/\/(?:127\.0\.0\.1|localhost):/g, `//${host}:`);
  }
  return { Parameters: parameters };
}

function main(): void {
  const { values } = parseArgs({
    options: { host: { type: 'string' }, model: { type: 'boolean' }, out: { type: 'string' } },
  });
  const dataDir = localDataDir();
  const owner = runningRuntime(dataDir);
  if (!owner?.functionEnvironment) {
    console.error(`error: no npm start is running on ${dataDir}; start it first.`);
    process.exit(1);
  }
  const file = `${JSON.stringify(samEnvFile(owner, values), null, 2)}\n`;
  if (values.out) writeFileSync(values.out, file);
  else process.stdout.write(file);
}

if (require.main === module) main();
