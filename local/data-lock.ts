/**
 * DynamoDB Local keeps its data in one SQLite file that two processes must not open at once.
 * One process at a time owns the data folder, recorded in `dynamodb.lock` (pid + kind); a
 * running `npm start` also records its emulator ports in `runtime.json`, so the admin CLI
 * goes through that instance instead of opening the file itself.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dataPaths } from './local-config';

export type LockOwnerKind = 'runtime' | 'admin';

export interface LockOwner {
  pid: number;
  kind: LockOwnerKind;
}

export interface RuntimeInfo {
  pid: number;
  baseUrl: string;
  dynamodbEndpoint: string;
  motoEndpoint: string;
  startedAt: string;
}

export interface DataLock {
  release(): void;
}

/** A zombie (killed, not reaped yet) counts as gone. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No /proc (macOS), or it ended meanwhile.
    return !existsSync('/proc');
  }
}

/** The current owner of the data folder, or undefined when it is free (stale locks count as free). */
export function lockOwner(dataDir: string): LockOwner | undefined {
  const owner = readJson<LockOwner>(dataPaths(dataDir).lock);
  if (!owner || typeof owner.pid !== 'number') return undefined;
  return isProcessAlive(owner.pid) ? owner : undefined;
}

/**
 * Takes the data folder for this process, or returns the live owner that holds it. A lock left
 * by a process that died is taken over. The same process may hold it once per data folder.
 */
export function tryLock(dataDir: string, kind: LockOwnerKind): DataLock | LockOwner {
  const { lock } = dataPaths(dataDir);
  mkdirSync(dataDir, { recursive: true });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(lock, JSON.stringify({ pid: process.pid, kind } satisfies LockOwner), { flag: 'wx' });
      return { release: () => releaseIfMine(lock) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = lockOwner(dataDir);
    if (owner) return owner;
    rmSync(lock, { force: true });
  }
  throw new Error(`Could not lock ${dataDir}: remove ${lock} if no Inkpress process is running.`);
}

/**
 * Waits until the lock is free or owned by a runtime; gives up after `timeoutMs`. A runtime
 * owner gets a moment to go away: a start right after a `kill -9` finds it still dying.
 */
export async function lockWhenFree(
  dataDir: string,
  kind: LockOwnerKind,
  timeoutMs: number,
): Promise<DataLock | LockOwner> {
  const deadline = Date.now() + timeoutMs;
  const runtimeDeadline = Date.now() + Math.min(timeoutMs, DYING_RUNTIME_GRACE_MS);
  for (;;) {
    const result = tryLock(dataDir, kind);
    if ('release' in result || Date.now() > deadline) return result;
    if (result.kind === 'runtime' && Date.now() > runtimeDeadline) return result;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const DYING_RUNTIME_GRACE_MS = 2_000;

export function writeRuntimeInfo(dataDir: string, info: RuntimeInfo): void {
  writeFileSync(dataPaths(dataDir).runtime, `${JSON.stringify(info, null, 2)}\n`);
}

export function readRuntimeInfo(dataDir: string): RuntimeInfo | undefined {
  const info = readJson<RuntimeInfo>(dataPaths(dataDir).runtime);
  return info && isProcessAlive(info.pid) ? info : undefined;
}

export function removeRuntimeInfo(dataDir: string): void {
  const { runtime } = dataPaths(dataDir);
  if (readJson<RuntimeInfo>(runtime)?.pid === process.pid) rmSync(runtime, { force: true });
}

function releaseIfMine(lock: string): void {
  if (readJson<LockOwner>(lock)?.pid === process.pid) rmSync(lock, { force: true });
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
