/**
 * Starts the AWS emulators (as the integration tests do) and a real WordPress peer on a free
 * loopback port in a fresh state directory; its KEY=value lines (WP_URL, WP_LOGIN, ...) go to
 * the environment the test workers inherit.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../../local/emulators';
import startEmulators from '../../support/emulators-global-setup';
import { parseEnvLines, peer } from './wordpress-peer';

export default async function globalSetup(): Promise<void> {
  process.env.WP_PEER_DIR ??= path.join(tmpdir(), `inkpress-e2e-wp-${randomBytes(4).toString('hex')}`);
  process.env.WP_PEER_PORT ??= String(await freePort());
  peer('install');
  const values = parseEnvLines(peer('up'));
  if (!values.WP_URL) throw new Error('peer.sh up printed no WP_URL');
  Object.assign(process.env, values);
  await startEmulators();
}
