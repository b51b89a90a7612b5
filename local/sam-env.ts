/**
 * `npm run --silent sam-env [-- --host NAME] > env.json`: the `--env-vars` file of
 * `sam local invoke` (template synthesized with `-c samLocal=true`) that points every function at
 * the tables, queues, key and emulators of the running `npm start` (on `$INKPRESS_DATA_DIR`).
 * `--host` replaces 127.0.0.1 in its addresses, for a container that reaches this machine by
 * another name (Docker Desktop: `host.docker.internal`; Linux: keep 127.0.0.1 and run SAM with
 * `--docker-network host`). Exit codes: 0 printed, 1 no `npm start` running on the folder.
 */
import { parseArgs } from 'node:util';
import { SAM_LOCAL_VARIABLES } from '../lib/constructs/sam-local';
import { currentOwner, type Owner } from './data-lock';
import { localDataDir } from './local-config';

/** Of the AWS SDK's variables, the endpoints only: SAM sets region and credentials itself. */
const passed = (name: string) =>
  !name.startsWith('AWS_') || SAM_LOCAL_VARIABLES.some((variable) => variable === name);

/** SAM's env file for a running runtime: one `Parameters` object for every function. */
export function samEnvFile(owner: Owner, host = '127.0.0.1'): { Parameters: Record<string, string> } {
  const parameters: Record<string, string> = {
    ...Object.fromEntries(Object.entries(owner.functionEnvironment ?? {}).filter(([name]) => passed(name))),
    INKPRESS_LOCAL_MODE: 'true',
    INKPRESS_ALLOW_PRIVATE_URLS: 'true',
    INKPRESS_HSTS: 'false',
  };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL']) {
    const value = process.env[name];
    if (value) parameters[name] = value;
  }
  for (const [name, value] of Object.entries(parameters)) {
    parameters[name] = value.replaceAll('//127.0.0.1:', `//${host}:`);
  }
  return { Parameters: parameters };
}

function main(): void {
  const { values } = parseArgs({ options: { host: { type: 'string' } } });
  const dataDir = localDataDir();
  const owner = currentOwner(dataDir);
  if (!owner?.functionEnvironment) {
    console.error(`error: no npm start is running on ${dataDir}; start it first.`);
    process.exit(1);
  }
  console.log(JSON.stringify(samEnvFile(owner, values.host), null, 2));
}

if (require.main === module) main();
