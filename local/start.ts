/**
 * `npm start`: runs Inkpress locally (see local-runtime.ts) until Ctrl-C or SIGTERM, or until an
 * emulator dies and cannot be restored (exit code 1, the reason on stderr).
 * Settings (see local/README.md): PORT, INKPRESS_DATA_DIR, INKPRESS_SWEEP_SECONDS,
 * INKPRESS_AUTHORIZER_CACHE_SECONDS, INKPRESS_LOG_REQUESTS.
 */
import './process-defaults';
import { MissingPrerequisiteError } from './emulators';
import { localDefaults, numberFromEnv } from './local-config';
import { type LocalRuntime, startLocalRuntime } from './local-runtime';

async function main(): Promise<void> {
  const started = Date.now();
  const runtime = await startLocalRuntime({
    port: numberFromEnv('PORT', localDefaults.port),
    sweepSeconds: numberFromEnv('INKPRESS_SWEEP_SECONDS', localDefaults.sweepSeconds),
    authorizerCacheSeconds: numberFromEnv(
      'INKPRESS_AUTHORIZER_CACHE_SECONDS',
      localDefaults.authorizerCacheSeconds,
    ),
    logRequests: !['0', 'false', 'no', 'off'].includes(
      process.env.INKPRESS_LOG_REQUESTS?.trim().toLowerCase() ?? '',
    ),
    log: (line) => console.log(`[inkpress] ${line}`),
    onFatal: (message) => {
      console.error(`[inkpress] ${message}`);
      process.exit(1);
    },
  });
  printBanner(runtime, Date.now() - started);
  stopOnSignals(runtime);
}

function printBanner(runtime: LocalRuntime, elapsedMs: number): void {
  const lines = [
    '',
    `Inkpress is running locally (ready in ${(elapsedMs / 1000).toFixed(1)} s).`,
    '',
    `  API         ${runtime.baseUrl}`,
    `  Token       ${runtime.token}${runtime.accountCreated ? '  (new local account)' : ''}`,
    `  Account     ${runtime.accountId}`,
    `  Model       ${modelDescription()}`,
    `  Data        ${runtime.dataDir}`,
    ...(runtime.resentAtStart > 0
      ? [
          '',
          `${runtime.resentAtStart} article(s) were waiting or being generated when Inkpress last stopped: sent to generation again.`,
        ]
      : []),
    ...runtime.warnings.map((warning) => `\nWarning: ${warning}`),
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${runtime.token}" ${runtime.baseUrl}/v1/languages`,
    '',
    `Admin CLI (in another terminal): npm run --silent admin -- account show --account ${runtime.accountId}`,
    'Press Ctrl-C to stop.',
    '',
  ];
  console.log(lines.join('\n'));
}

/**
 * Ctrl-C reaches this process twice (from the terminal and relayed by tsx), so only a signal
 * more than a second after the first one forces an immediate exit.
 */
function stopOnSignals(runtime: LocalRuntime): void {
  let stoppingSince: number | undefined;
  const stop = (signal: string) => {
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < 1_000) return;
      console.log('[inkpress] Forced exit.');
      process.exit(130);
    }
    stoppingSince = Date.now();
    console.log(`\n[inkpress] ${signal}: stopping…`);
    runtime.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`[inkpress] Stop failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);
}

function modelDescription(): string {
  const { OPENAI_API_KEY, OPENAI_BASE_URL } = process.env;
  if (!OPENAI_API_KEY) return 'offline writer (no OPENAI_API_KEY set: articles are placeholder text)';
  return OPENAI_BASE_URL ? `OpenAI-compatible API at ${OPENAI_BASE_URL}` : 'OpenAI API';
}

main().catch((error: unknown) => {
  if (error instanceof MissingPrerequisiteError) console.error(error.message);
  else console.error(`Inkpress could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
