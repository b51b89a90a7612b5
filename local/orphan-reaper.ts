/**
 * Stops the emulators even when this process dies without cleaning up (SIGKILL, a crash in
 * native code): a detached `sh` loop waits for this process to go away, then terminates them.
 * A normal stop ends the reaper first.
 */
import { spawn } from 'node:child_process';

export interface OrphanReaper {
  pid: number | undefined;
  /** Ends the reaper (and its `sleep`) and waits until it is gone. */
  stop(): Promise<void>;
}

export function startOrphanReaper(childPids: number[]): OrphanReaper {
  const pids = childPids.filter((pid) => Number.isInteger(pid) && pid > 0).join(' ');
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill ${pids} 2>/dev/null; sleep 5; kill -9 ${pids} 2>/dev/null`;
  const reaper = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  reaper.unref();
  const exited = new Promise<void>((resolve) => {
    reaper.once('exit', () => resolve());
    reaper.once('error', () => resolve());
  });
  return {
    pid: reaper.pid,
    stop: async () => {
      if (reaper.pid === undefined || reaper.exitCode !== null || reaper.signalCode !== null) return;
      reaper.ref();
      try {
        process.kill(-reaper.pid, 'SIGKILL');
      } catch {
        return;
      }
      await exited;
    },
  };
}
