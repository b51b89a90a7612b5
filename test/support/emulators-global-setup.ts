/**
 * Starts DynamoDB Local and moto_server once for all integration tests and exports their
 * endpoints in the standard AWS_ENDPOINT_URL_* variables (inherited by the test workers). When
 * one cannot start, the other is stopped before the run fails (Jest runs no teardown then).
 */
import {
  type RunningEmulator,
  resolvedPython,
  startDynamoDbLocal,
  startMotoServer,
} from '../../local/emulators';
import { emulatorClientEnv } from '../../local/local-config';
import { UNLIMITED_RATE } from './unlimited-rate';

/**
 * Longer than `npm start`'s 30 s: DynamoDB Local took 26 s to listen on this 2-core machine shared
 * with other test runs (load 25, 2026-11-27), and a run that gives up there tests nothing.
 */
const START_TIMEOUT_MS = 120_000;

export default async function globalSetup(): Promise<void> {
  // A longer bound than 30 s for the emulators the test files start (local runtimes, `npm start`,
  // the admin CLI), inherited by the workers and their child processes: 90 s, inside the 120 s
  // of the `beforeAll` hooks that start them.
  process.env.INKPRESS_EMULATOR_START_SECONDS ??= '90';
  // No rate limit a test's calls could meet, for the local runtimes and `npm start`s the files start
  // too (rate-limit.test.ts sets its own).
  Object.assign(process.env, UNLIMITED_RATE);
  // Every moto_server the test files start (~20 in a run) skips the python3 shim of a version
  // manager: the interpreter it resolves to, found once here.
  const python = resolvedPython();
  if (python) process.env.MOTO_PYTHON = python;
  const started = await Promise.allSettled([
    // The client compiler only, as `npm start`: this instance serves every integration file for
    // a few minutes: 42 s of CPU in a whole run against 60 s with the server compiler too, and
    // 25 s against 53 s for five of the busiest files.
    startDynamoDbLocal({ startTimeoutMs: START_TIMEOUT_MS, fastStart: true }),
    startMotoServer({ startTimeoutMs: START_TIMEOUT_MS }),
  ]);
  const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    await Promise.all(running.map((emulator) => emulator.stop()));
    throw failure.reason;
  }
  const [dynamodb, moto] = running as [RunningEmulator, RunningEmulator];
  Object.assign(process.env, emulatorClientEnv({ dynamodb: dynamodb.endpoint, moto: moto.endpoint }));
  (globalThis as { inkpressEmulators?: unknown }).inkpressEmulators = [dynamodb, moto];
}
