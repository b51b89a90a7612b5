import type { ClassArchiveTraining } from '../../local/dynamodb-local-class-archive-training';
import type { RunningEmulator } from '../../local/emulators';

/**
 * A class archive training still running is given up to 30 s to finish (a short run would
 * otherwise throw its work away at every run), then stopped: nothing is left running.
 */
const TRAINING_GRACE_MS = 30_000;

export default async function globalTeardown(): Promise<void> {
  const state = globalThis as {
    inkpressEmulators?: RunningEmulator[];
    inkpressClassArchiveTraining?: ClassArchiveTraining;
  };
  const emulators = state.inkpressEmulators ?? [];
  const training = state.inkpressClassArchiveTraining;
  await Promise.all([
    ...emulators.map((emulator) => emulator.stop()),
    training &&
      Promise.race([
        training.done,
        new Promise((resolve) => setTimeout(resolve, TRAINING_GRACE_MS).unref()),
      ]).then(() => training.stop()),
  ]);
}
