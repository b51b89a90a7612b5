/**
 * Owning the data folder, and the one clean-up path for child processes.
 *
 * DynamoDB Local keeps its data in one SQLite file that two processes must not open at once, so
 * one process at a time owns the data folder: `runtime.json` names it and, once `npm start` is
 * up, its DynamoDB Local endpoint and resource prefix, which the admin CLI then uses instead of
 * starting its own. (A runtime attached to emulators it did not start takes the folder too: it
 * holds the local token, and the admin CLI and sam-env find the runtime through it.)
 *
 * The owner's child processes never outlive it: taking the folder starts a detached watcher
 * (`sh`) that, once the owner or the processes that launched it (tsx, npm's shell) are gone,
 * sends the owner SIGTERM (a clean stop), waits for it, then ends whatever still runs on the
 * folder's data (the emulators, whatever their pids after restarts). The folder counts as taken
 * until the watcher is done too, so a new start never meets the old emulators.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dataPaths } from './local-config';

export interface Owner {
  pid: number;
  watcherPid: number;
  kind: 'runtime' | 'admin';
  baseUrl?: string;
  dynamodbEndpoint?: string;
  /** The prefix of the runtime's tables, queues and key (absent in records of older versions: `inkpress-local`). */
  prefix?: string;
  /** The functions' environment (resources and emulator endpoints), for `npm run sam-env`. */
  functionEnvironment?: Record<string, string>;
}

export interface DataLock {
  watcherPid: number;
  /** Records what a running runtime offers (the admin CLI goes through its DynamoDB Local). */
  publish(
    info: Required<Pick<Owner, 'baseUrl' | 'dynamodbEndpoint' | 'prefix' | 'functionEnvironment'>>,
  ): void;
  /** Stops the watcher and frees the folder (after the emulators were stopped). */
  release(): Promise<void>;
}

const WATCHER = `
watched=$OWNER
for level in 1 2; do
  parent=$(ps -o ppid= -p "\${watched##* }" 2>/dev/null | tr -d ' ')
  [ "\${parent:-1}" -gt 1 ] && watched="$watched $parent"
done
while kill -0 $watched 2>/dev/null; do sleep 1; done
kill -TERM "$OWNER" 2>/dev/null
i=0; while kill -0 "$OWNER" 2>/dev/null && [ $i -lt 20 ]; do sleep 1; i=$((i+1)); done
pkill -f "$DATA/(dynamodb|moto)" && sleep 1 && pkill -9 -f "$DATA/(dynamodb|moto)"
exit 0`;

/** Whether a process with this pid exists (one of another user counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live owner of the data folder (its process or its watcher still running), if any. */
export function currentOwner(dataDir: string): Owner | undefined {
  try {
    const owner = JSON.parse(readFileSync(dataPaths(dataDir).runtime, 'utf8')) as Owner;
    return isAlive(owner.pid) || isAlive(owner.watcherPid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** The `npm start` running on the data folder (not one that is stopping), if any. */
export function runningRuntime(dataDir: string): Owner | undefined {
  const owner = currentOwner(dataDir);
  return owner?.dynamodbEndpoint !== undefined && isAlive(owner.pid) ? owner : undefined;
}

/**
 * Takes the data folder, waiting up to `timeoutMs` for its owner to go; returns the owner
 * instead when it is a running `npm start` (with its endpoint), at once for the admin CLI and
 * after a moment for a runtime (one killed a moment ago may still be dying).
 */
export async function lockDataFolder(
  dataDir: string,
  kind: Owner['kind'],
  timeoutMs: number,
): Promise<DataLock | Owner> {
  const file = dataPaths(dataDir).runtime;
  mkdirSync(dataDir, { recursive: true });
  const started = Date.now();
  for (;;) {
    try {
      writeFileSync(file, JSON.stringify({ pid: process.pid, watcherPid: 0, kind }), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = currentOwner(dataDir);
    if (!owner) {
      rmSync(file, { force: true });
      continue;
    }
    const waited = Date.now() - started;
    const running = runningRuntime(dataDir) !== undefined;
    if (waited > timeoutMs || (running && (kind === 'admin' || waited > 2_000))) return owner;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const watcher = spawn('/bin/sh', ['-c', WATCHER], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: `${process.env.PATH}:/usr/bin:/bin`, OWNER: String(process.pid), DATA: dataDir },
  });
  watcher.unref();
  const watcherPid = watcher.pid ?? 0;
  const write = (extra: Partial<Owner> = {}) =>
    writeFileSync(file, JSON.stringify({ pid: process.pid, watcherPid, kind, ...extra } satisfies Owner));
  write();
  return {
    watcherPid,
    publish: (info) => write(info),
    release: async () => {
      if (watcherPid > 0 && watcher.exitCode === null && watcher.signalCode === null) {
        const exited = new Promise((resolve) => watcher.once('exit', resolve));
        watcher.ref();
        process.kill(-watcherPid, 'SIGKILL');
        await exited;
      }
      rmSync(file, { force: true });
    },
  };
}
