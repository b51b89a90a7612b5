/**
 * A local runtime for an integration test file that only needs a running local API: attached to
 * the emulators of the integration project's global set-up (emulators-global-setup.ts) under a
 * prefix of its own, instead of starting its own DynamoDB Local and moto_server (~8 s of CPU).
 * Files that test the emulators themselves (ports, restarts, child processes) start their own.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AttachedEmulators } from '../../local/local-config';
import { type LocalRuntime, type LocalRuntimeOptions, startLocalRuntime } from '../../local/local-runtime';

/** Read when this module loads, before any runtime of the file points the variables elsewhere. */
const shared = {
  dynamodb: process.env.AWS_ENDPOINT_URL_DYNAMODB,
  moto: process.env.AWS_ENDPOINT_URL_SQS,
};

/** The global set-up's DynamoDB Local and moto_server. */
export function sharedEmulators(): AttachedEmulators {
  const { dynamodb, moto } = shared;
  if (!dynamodb || !moto) {
    throw new Error(
      'Emulators are not running: integration tests must run through the jest integration project.',
    );
  }
  return { dynamodb, moto };
}

/** A prefix no other file of the run uses. */
export function uniquePrefix(label = 'rt'): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}

/** `startLocalRuntime` on the shared emulators, with its own prefix (unless given one). */
export function startAttachedRuntime(options: Omit<LocalRuntimeOptions, 'attach'>) {
  return startLocalRuntime({ prefix: uniquePrefix(), ...options, attach: sharedEmulators() });
}

/**
 * An attached runtime in a new temporary data folder, quiet, with no periodic sweep and a first
 * one half a second after the start.
 */
export async function startInTemporaryFolder(): Promise<{ dataDir: string; runtime: LocalRuntime }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-runtime-'));
  const runtime = await startAttachedRuntime({
    port: 0,
    dataDir,
    sweepSeconds: 0,
    firstSweepAfterMs: 500,
    log: () => undefined,
  });
  return { dataDir, runtime };
}
