/**
 * `npm start`: runs Inkpress locally (local-runtime.ts) until Ctrl-C or SIGTERM, or until an
 * emulator dies and cannot be restored (exit code 1, the reason on stderr). Settings: local/README.md.
 */
import './process-defaults';
import { envFlag } from '../functions/shared/env';
import { MissingPrerequisiteError } from './emulators';
import { emulatorSettingsFromEnv, LOCAL_PREFIX, localDefaults, messageOf } from './local-config';
import { startLocalRuntime } from './local-runtime';

/** A whole-number setting from the environment; `fallback` when unset. */
function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}".`);
  return value;
}

/** A path as one shell word. */
function shellWord(text: string): string {
  return /^[\w./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const { OPENAI_API_KEY, OPENAI_BASE_URL } = process.env;
  const { attach, prefix } = emulatorSettingsFromEnv(process.env);
  const runtime = await startLocalRuntime({
    attach,
    prefix,
    port: numberFromEnv('PORT', localDefaults.port),
    sweepSeconds: numberFromEnv('INKPRESS_SWEEP_SECONDS', localDefaults.sweepSeconds),
    authorizerCacheSeconds: numberFromEnv(
      'INKPRESS_AUTHORIZER_CACHE_SECONDS',
      localDefaults.authorizerCacheSeconds,
    ),
    logRequests: envFlag('INKPRESS_LOG_REQUESTS', true),
    log: (line) => console.log(`[inkpress] ${line}`),
    onFatal: (message) => {
      console.error(`[inkpress] ${message}`);
      process.exit(1);
    },
  });
  // Before the banner, which tells whoever waits for it that a signal now stops Inkpress cleanly.
  // Ctrl-C reaches this process twice (from the terminal and relayed by npm), so only a signal
  // more than a second after the first one forces an immediate exit.
  let stoppingSince: number | undefined;
  const stop = (signal: string) => {
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < 1_000) return;
      console.log('[inkpress] Forced exit.');
      process.exit(130);
    }
    stoppingSince = Date.now();
    console.log(`\n[inkpress] ${signal}: stopping…`);
    void runtime.stop().then(() => process.exit(0)); // stop() logs what failed and never throws
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, stop);

  const { baseUrl, token, accountId, resentAtStart } = runtime;
  const model = !OPENAI_API_KEY
    ? 'offline writer (no OPENAI_API_KEY set: articles are placeholder text)'
    : OPENAI_BASE_URL
      ? `OpenAI-compatible API at ${OPENAI_BASE_URL}`
      : 'OpenAI API';
  // The admin CLI uses the default folder unless given this one, as npm start was.
  const dataDirSetting = process.env.INKPRESS_DATA_DIR?.trim()
    ? `INKPRESS_DATA_DIR=${shellWord(runtime.dataDir)} `
    : '';
  // Emulators given to attach to, or a prefix of one's own: where the data is.
  const resources =
    attach || prefix !== LOCAL_PREFIX
      ? [
          `  Resources   ${prefix}-* in ${
            attach
              ? `DynamoDB at ${attach.dynamodb}, SQS/KMS/S3 at ${attach.moto} (started by you: Inkpress never stops them)`
              : 'its own emulators'
          }`,
        ]
      : [];
  const resent = `${resentAtStart} article(s) were waiting or being generated when Inkpress last stopped: sent to generation again.`;
  console.log(
    [
      '',
      `Inkpress is running locally (ready in ${((Date.now() - started) / 1000).toFixed(1)} s).`,
      '',
      `  API         ${baseUrl}`,
      `  Token       ${token}${runtime.accountCreated ? '  (new local account)' : ''}`,
      `  Account     ${accountId}`,
      `  Model       ${model}`,
      `  Data        ${runtime.dataDir}`,
      ...resources,
      ...(resentAtStart > 0 ? ['', resent] : []),
      ...runtime.warnings.map((warning) => `\nWarning: ${warning}`),
      '',
      'Try it:',
      `  curl -H "Authorization: Bearer ${token}" ${baseUrl}/v1/languages`,
      '',
      `Admin CLI (in another terminal): ${dataDirSetting}npm run --silent admin -- account show --account ${accountId}`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  if (error instanceof MissingPrerequisiteError) console.error(error.message);
  else console.error(`Inkpress could not start: ${messageOf(error)}`);
  process.exit(1);
});
