import stopEmulators from '../../support/emulators-global-teardown';
import { peer } from './wordpress-peer';

export default async function globalTeardown(): Promise<void> {
  try {
    if (process.env.WP_PEER_DIR) peer('down');
  } finally {
    await stopEmulators();
  }
}
