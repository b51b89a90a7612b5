/** Drives test/e2e/wordpress/peer.sh: a throw-away real WordPress with the plugin, on loopback. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const PEER = path.join(__dirname, '..', 'wordpress', 'peer.sh');

/** Runs a peer.sh subcommand with the peer's directory and port from the environment; returns stdout. */
export function peer(command: string, ...args: string[]): string {
  const result = spawnSync('bash', [PEER, command, ...args], {
    encoding: 'utf8',
    env: process.env,
    timeout: 300_000,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`peer.sh ${command} failed (exit ${result.status}):\n${result.stderr}${result.stdout}`);
  }
  return result.stdout;
}

/** The KEY=value lines `peer.sh up` prints. */
export function parseEnvLines(output: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of output.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match?.[1]) values[match[1]] = match[2] ?? '';
  }
  return values;
}
