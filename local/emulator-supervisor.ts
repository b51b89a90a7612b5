/**
 * Keeps DynamoDB Local and moto_server running under `npm start`. When one exits, the runtime
 * is told at once (`onUnavailable`: the API answers 503, the poller and the schedule pause),
 * the emulator is started again on the same port with the same data, `afterRestart` restores
 * what it lost, and the runtime is told it is available again. When that does not succeed
 * within `restoreWithinMs`, or the emulators keep dying (more than `maxRestartsPerMinute`
 * restarts within a minute), `onFatal` gets a message that says why.
 */
import type { RunningEmulator } from './emulators';

export interface SupervisedEmulator {
  current: RunningEmulator;
  /** Starts it again on the same port with the same data. */
  restart(): Promise<RunningEmulator>;
}

export interface EmulatorSupervisorOptions {
  /** In restart order (DynamoDB Local first: restoring moto's queue reads the articles). */
  emulators: SupervisedEmulator[];
  log: (line: string) => void;
  /** Restores what the restarted emulators lost; a throw fails this attempt (it is tried again). */
  afterRestart(restarted: RunningEmulator[]): Promise<void>;
  onUnavailable(): void;
  onAvailable(): void;
  /** Called once; the supervisor stops watching. */
  onFatal(message: string): void;
  maxRestartsPerMinute?: number;
  restoreWithinMs?: number;
}

export interface EmulatorSupervisor {
  /** The emulators running now. */
  running(): RunningEmulator[];
  /** Stops watching (before the emulators are stopped on purpose). */
  stop(): void;
}

export const supervisorDefaults = { maxRestartsPerMinute: 3, restoreWithinMs: 40_000 } as const;

export function superviseEmulators(options: EmulatorSupervisorOptions): EmulatorSupervisor {
  const maxRestarts = options.maxRestartsPerMinute ?? supervisorDefaults.maxRestartsPerMinute;
  const restoreWithinMs = options.restoreWithinMs ?? supervisorDefaults.restoreWithinMs;
  /** Restarts within the last minute, per emulator. */
  const restartTimes = new Map<SupervisedEmulator, number[]>();
  const dead = new Set<SupervisedEmulator>();
  /** Restarted, but what they lost is not restored yet. */
  const unrestored = new Set<SupervisedEmulator>();
  let stopped = false;
  let restoring = false;

  const fatal = (message: string) => {
    if (stopped) return;
    stopped = true;
    options.onFatal(message);
  };

  const watch = (emulator: SupervisedEmulator) => {
    const { process: child, name } = emulator.current;
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      if (stopped || emulator.current.process !== child) return;
      options.log(
        `${name} stopped (${signal ?? `exit code ${code}`}); restarting it on port ${emulator.current.port}. Meanwhile the API answers 503.`,
      );
      dead.add(emulator);
      if (restoring) return;
      restoring = true;
      options.onUnavailable();
      void restore().finally(() => {
        restoring = false;
      });
    };
    // An emulator that died before it was watched counts as well.
    if (child.exitCode !== null || child.signalCode !== null)
      queueMicrotask(() => onExit(child.exitCode, child.signalCode));
    else child.once('exit', onExit);
  };

  async function restore(): Promise<void> {
    const began = Date.now();
    const names = () => [...dead].map((emulator) => emulator.current.name).join(' and ');
    let lastError = '';
    const deadline = setTimeout(
      () =>
        fatal(
          `${names() || 'An emulator'} could not be restored within ${restoreWithinMs / 1000} s${lastError ? ` (${lastError})` : ''}.`,
        ),
      restoreWithinMs,
    );
    try {
      while (!stopped) {
        const now = Date.now();
        const recent = (emulator: SupervisedEmulator) => {
          const times = (restartTimes.get(emulator) ?? []).filter((at) => at > now - 60_000);
          restartTimes.set(emulator, times);
          return times;
        };
        const looping = [...dead].find((emulator) => recent(emulator).length >= maxRestarts);
        if (looping) {
          fatal(
            `${looping.current.name} could not be kept running: ${recent(looping).length} restarts within a minute${lastError ? ` (last error: ${lastError})` : ''}.`,
          );
          return;
        }
        try {
          for (const emulator of options.emulators) {
            if (!dead.has(emulator)) continue;
            restartTimes.set(emulator, [...(restartTimes.get(emulator) ?? []), Date.now()]);
            const started = await emulator.restart();
            if (stopped) {
              await started.stop();
              return;
            }
            emulator.current = started;
            dead.delete(emulator);
            unrestored.add(emulator);
            watch(emulator);
          }
          await options.afterRestart([...unrestored].map((emulator) => emulator.current));
          unrestored.clear();
          if (dead.size > 0 || stopped) continue;
          options.log(
            `Emulators running again after ${((Date.now() - began) / 1000).toFixed(1)} s; the API accepts requests.`,
          );
          options.onAvailable();
          return;
        } catch (error) {
          lastError = error instanceof Error ? error.message : String(error);
          if (!stopped) options.log(`Restore failed: ${lastError}`);
          await new Promise((resolve) => setTimeout(resolve, 1_000));
        }
      }
    } finally {
      clearTimeout(deadline);
    }
  }

  for (const emulator of options.emulators) watch(emulator);

  return {
    running: () => options.emulators.map((emulator) => emulator.current),
    stop() {
      stopped = true;
    },
  };
}
