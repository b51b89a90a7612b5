import type { RunningEmulator } from '../../local/emulators';

export default async function globalTeardown(): Promise<void> {
  const emulators = (globalThis as { inkpressEmulators?: RunningEmulator[] }).inkpressEmulators ?? [];
  await Promise.all(emulators.map((emulator) => emulator.stop()));
}
