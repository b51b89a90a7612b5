/**
 * Keeps DynamoDB Local and moto_server running under `npm start`. When one exits, the runtime
 * is told at once (`onUnavailable`: the API answers 503, the pollers and the schedule pause),
 * the emulator is started again on the same port with the same data, `afterRestart` restores
 * what it lost, and the runtime is told it is available again. When that does not succeed
 * within `restoreWithinMs`, or an emulator keeps dying (`maxRestartsPerMinute` restarts within
 * a minute and it died again), `onFatal` gets a message that says why.
 */
import type { RunningEmulator } from './emulators';
import { messageOf } from './local-config';

export interface SupervisedEmulator {
  /** The running process; replaced at each restart. */
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

export function superviseEmulators(options: EmulatorSupervisorOptions) {
  const { maxRestartsPerMinute = 3, restoreWithinMs = 40_000 } = options;
  const restartTimes = new Map<SupervisedEmulator, number[]>();
  const dead = new Set<SupervisedEmulator>();
  /** Restarted, but what they lost is not restored yet. */
  const unrestored = new Set<SupervisedEmulator>();
  let stopped = false;
  let restoring = false;

  const fatal = (message: string) => {
    if (!stopped) options.onFatal(message);
    stopped = true;
  };
  const recentRestarts = (emulator: SupervisedEmulator) => {
    const times = (restartTimes.get(emulator) ?? []).filter((at) => at > Date.now() - 60_000);
    restartTimes.set(emulator, times);
    return times;
  };

  const watch = (emulator: SupervisedEmulator) => {
    const { process: child, name, port } = emulator.current;
    const onExit = () => {
      if (stopped || emulator.current.process !== child) return;
      options.log(
        `${name} stopped (${child.signalCode ?? `exit code ${child.exitCode}`}); restarting it on port ${port}. Meanwhile the API answers 503.`,
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
    if (child.exitCode !== null || child.signalCode !== null) queueMicrotask(onExit);
    else child.once('exit', onExit);
  };

  async function restore(): Promise<void> {
    const began = Date.now();
    let lastError = '';
    const names = () => [...dead].map((emulator) => emulator.current.name).join(' and ') || 'An emulator';
    const why = (prefix: string) => (lastError ? ` (${prefix}${lastError})` : '');
    const deadline = setTimeout(
      () => fatal(`${names()} could not be restored within ${restoreWithinMs / 1000} s${why('')}.`),
      restoreWithinMs,
    );
    try {
      while (!stopped) {
        const looping = [...dead].find((emulator) => recentRestarts(emulator).length >= maxRestartsPerMinute);
        if (looping) {
          const count = recentRestarts(looping).length;
          return fatal(
            `${looping.current.name} could not be kept running: ${count} restarts within a minute${why('last error: ')}.`,
          );
        }
        try {
          for (const emulator of options.emulators.filter((each) => dead.has(each))) {
            restartTimes.set(emulator, [...recentRestarts(emulator), Date.now()]);
            const started = await emulator.restart();
            if (stopped) return await started.stop();
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
          return options.onAvailable();
        } catch (error) {
          lastError = messageOf(error);
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
    /** Stops watching (before the emulators are stopped on purpose). */
    stop: () => {
      stopped = true;
    },
  };
}
