import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { type EmulatorSupervisorOptions, superviseEmulators } from '../../../local/emulator-supervisor';
import type { RunningEmulator } from '../../../local/emulators';

/** A stand-in emulator whose process can be made to exit. */
function fakeEmulator(name: string, pid: number): RunningEmulator & { die(): void } {
  const child = Object.assign(new EventEmitter(), { pid, exitCode: null, signalCode: null });
  return {
    name,
    port: 9000 + pid,
    endpoint: `http://127.0.0.1:${9000 + pid}`,
    process: child as unknown as ChildProcess,
    stop: async () => undefined,
    die: () => {
      Object.assign(child, { signalCode: 'SIGKILL' });
      child.emit('exit', null, 'SIGKILL');
    },
  };
}

function harness(overrides: Partial<EmulatorSupervisorOptions> = {}, restartFails = false) {
  let nextPid = 100;
  const events: string[] = [];
  const restarted: string[][] = [];
  const emulators = [fakeEmulator('DynamoDB Local', 1), fakeEmulator('moto_server', 2)];
  const supervised = emulators.map((emulator) => ({
    current: emulator as RunningEmulator,
    restart: async () => {
      if (restartFails) throw new Error(`Port ${emulator.port} is in use by another process.`);
      return fakeEmulator(emulator.name, nextPid++);
    },
  }));
  const supervisor = superviseEmulators({
    emulators: supervised,
    log: () => undefined,
    afterRestart: async (started) => {
      restarted.push(started.map((emulator) => emulator.name));
    },
    onUnavailable: () => events.push('unavailable'),
    onAvailable: () => events.push('available'),
    onFatal: (message) => events.push(`fatal: ${message}`),
    ...overrides,
  });
  const kill = (index: number) =>
    (supervised[index]?.current as ReturnType<typeof fakeEmulator> | undefined)?.die();
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  return { supervisor, supervised, events, restarted, kill, settle };
}

describe('superviseEmulators', () => {
  it('restarts a dead emulator, restores what it lost, and reports the outage', async () => {
    const { supervised, events, restarted, kill, settle } = harness();
    kill(1);
    await settle();
    expect(events).toEqual(['unavailable', 'available']);
    expect(restarted).toEqual([['moto_server']]);
    expect(supervised[1]?.current.process.pid).toBe(100);
    expect(supervised.map((emulator) => emulator.current.process.pid)).toEqual([1, 100]);
  });

  it('gives up on an emulator restarted too often within a minute', async () => {
    const { events, kill, settle } = harness({ maxRestartsPerMinute: 2 });
    for (let death = 0; death < 3; death++) {
      kill(0);
      await settle();
    }
    expect(events).toEqual([
      'unavailable',
      'available',
      'unavailable',
      'available',
      'unavailable',
      'fatal: DynamoDB Local could not be kept running: 2 restarts within a minute.',
    ]);
  });

  it('counts restarts per emulator', async () => {
    const { events, kill, settle } = harness({ maxRestartsPerMinute: 2 });
    for (const index of [0, 1, 0, 1]) {
      kill(index);
      await settle();
    }
    expect(events.filter((event) => event.startsWith('fatal'))).toEqual([]);
  });

  it('gives up when the emulator cannot be started again, saying why', async () => {
    const { events, kill } = harness({ restoreWithinMs: 300, maxRestartsPerMinute: 100 }, true);
    kill(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(events).toEqual([
      'unavailable',
      expect.stringMatching(
        /^fatal: moto_server could not be restored within 0.3 s \(Port 9002 is in use by another process\.\)\.$/,
      ),
    ]);
  });

  it('ignores exits after stop()', async () => {
    const { supervisor, events, kill, settle } = harness();
    supervisor.stop();
    kill(0);
    await settle();
    expect(events).toEqual([]);
  });
});
