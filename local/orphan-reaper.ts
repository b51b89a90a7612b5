/**
 * Stops the emulators even when this process dies without cleaning up (SIGKILL, a crash in
 * native code): a detached `sh` loop waits for this process to go away, then terminates them.
 * A normal stop ends the reaper first.
 */
import { spawn } from 'node:child_process';

export interface OrphanReaper {
  pid: number | undefined;
  stop(): void;
}

export function startOrphanReaper(childPids: number[]): OrphanReaper {
  const pids = childPids.filter((pid) => Number.isInteger(pid) && pid > 0).join(' ');
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill ${pids} 2>/dev/null; sleep 5; kill -9 ${pids} 2>/dev/null`;
  const reaper = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  reaper.on('error', () => undefined);
  reaper.unref();
  return {
    pid: reaper.pid,
    stop: () => {
      if (reaper.pid === undefined) return;
      try {
        process.kill(-reaper.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}
