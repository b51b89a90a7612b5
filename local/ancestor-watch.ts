/**
 * `npm start` runs `sh -c "tsx local/start.ts"`; a SIGTERM sent to npm alone ends npm and that
 * shell but never reaches tsx or this process. Watching the processes that launched us (parent
 * and grandparent) lets the runtime stop as if it had been sent SIGTERM itself.
 */
import { readFileSync } from 'node:fs';
import { isProcessAlive } from './data-lock';

/** Calls `onGone` once when the parent or grandparent process exits; returns a cancel function. */
export function whenLauncherExits(onGone: () => void, levels = 2): () => void {
  const ancestors: number[] = [];
  let pid: number | undefined = process.ppid;
  while (pid !== undefined && pid > 1 && ancestors.length < levels) {
    ancestors.push(pid);
    pid = parentOf(pid);
  }
  const timer = setInterval(() => {
    if (ancestors.every(isProcessAlive)) return;
    clearInterval(timer);
    onGone();
  }, 1_000);
  timer.unref();
  return () => clearInterval(timer);
}

/** Parent pid from /proc (Linux); undefined elsewhere, where only the parent is watched. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(parent) ? parent : undefined;
  } catch {
    return undefined;
  }
}
