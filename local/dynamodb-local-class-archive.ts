/**
 * An application class-data-sharing (AppCDS) archive for DynamoDB Local: the classes a start loads,
 * parsed and verified once and then mapped from a file by every later JVM, which saves about a
 * third of a start's CPU (docs/local-development.md). It is built once per DynamoDB Local jar,
 * launcher and JVM into node_modules/.cache/inkpress/, by a training run in the background
 * (`dynamodb-local-class-archive-training.ts`); a start uses it only when it is complete and
 * verified, and anything wrong with it means a start as before, never a failed one.
 *
 * Java refuses to record an archive while a directory is on the class path, and DynamoDBLocal.jar's
 * manifest puts its own folder there (`Class-Path: . log4j2.xml DynamoDBLocal_lib/...`). So a start
 * with the archive runs a copy of the jar without its manifest, the launcher's classes as a jar, and
 * the manifest's library jars named one by one: the same classes, the only class path Java accepts.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { envFlag } from '../functions/shared/env';
import { isAlive } from './data-lock';
import { repoRoot } from './local-config';

const run = promisify(execFile);

/**
 * What DynamoDB Local runs from: its folder, its jar and the compiled 127.0.0.1 launcher; and the
 * folder the archive is kept in (default node_modules/.cache/inkpress; tests use their own).
 */
export interface DynamoDbLocalFiles {
  home: string;
  jar: string;
  launcherClasses: string;
  cache?: string;
}

/** An archive and the class path it was recorded with (a start must use exactly that one). */
export interface ClassArchive {
  file: string;
  classPath: string[];
}

/**
 * Added to a start that maps the archive: `auto` (the default, said aloud) runs without the archive
 * when Java finds it does not match; a crash report, if mapping crashes the JVM, goes to the
 * temporary folder rather than into node_modules (the JVM's working folder).
 */
export function classArchiveJvmOptions(archive: ClassArchive): string[] {
  return ['-Xshare:auto', `-XX:SharedArchiveFile=${archive.file}`, CRASH_REPORT_OPTION];
}

/** Where a JVM that crashes on an archive (mapping or writing it) leaves its report. */
export const CRASH_REPORT_OPTION = `-XX:ErrorFile=${path.join(os.tmpdir(), 'inkpress-dynamodb-local-hs_err_pid%p.log')}`;

/** `INKPRESS_DYNAMODB_CLASS_ARCHIVE=false`: starts never use the archive and nothing builds it. */
export function classArchiveEnabled(): boolean {
  return envFlag('INKPRESS_DYNAMODB_CLASS_ARCHIVE', true);
}

/** The real path (a worktree's node_modules may be a link): the archive records its class path. */
function cacheOf(files: DynamoDbLocalFiles): string {
  const cache = files.cache ?? path.join(repoRoot, 'node_modules', '.cache', 'inkpress');
  mkdirSync(cache, { recursive: true });
  return realpathSync(cache);
}
const ARCHIVE = 'dynamodb-local.jsa';
/** Written after the archive was verified: its size, time and class path. */
const RECORD = 'dynamodb-local.jsa.json';

interface ArchiveRecord {
  size: number;
  mtimeMs: number;
  classPath: string[];
  java: string;
}

/**
 * The cache folder of these files and this JVM. The JVM is told apart by the real path, size and
 * time of `java` and its libjvm (a JDK upgrade changes them) rather than by running `java -version`
 * at every start (0.14 s of CPU, 0.4 s); Java checks the archive's JVM build itself as well.
 */
export function classArchiveFolder(files: DynamoDbLocalFiles): string | undefined {
  const java = javaFingerprint();
  if (!java) return undefined;
  const jar = statSync(files.jar);
  const key = createHash('sha256')
    .update(JSON.stringify([path.basename(files.launcherClasses), files.jar, jar.size, jar.mtimeMs, java]))
    .digest('hex');
  return path.join(cacheOf(files), `dynamodb-local-cds-${key.slice(0, 16)}`);
}

/** The archive to start with, if one was built and verified for these files and this JVM. */
export function readyClassArchive(files: DynamoDbLocalFiles): ClassArchive | undefined {
  try {
    const folder = classArchiveFolder(files);
    if (!folder) return undefined;
    const record = JSON.parse(readFileSync(path.join(folder, RECORD), 'utf8')) as ArchiveRecord;
    const file = path.join(folder, ARCHIVE);
    const stat = statSync(file);
    // Written over or truncated since it was verified (a truncated archive crashes the JVM).
    if (stat.size !== record.size || stat.mtimeMs !== record.mtimeMs) return undefined;
    return { file, classPath: record.classPath };
  } catch {
    return undefined;
  }
}

/**
 * Forgets an archive a JVM failed to start with: the next training builds it again. (A training
 * whose JVM refuses the archive it made marks the folder failed instead, for good.)
 */
export function discardClassArchive(archive: ClassArchive): void {
  rmSync(path.join(path.dirname(archive.file), RECORD), { force: true });
  rmSync(archive.file, { force: true });
}

export type ClassArchiveOutcome =
  | 'built'
  /** Built and verified already. */
  | 'ready'
  /** Another training is running (this process or another). */
  | 'busy'
  /** Not possible here (no `jar` tool, the JVM refused the archive, ...): starts stay as they were. */
  | 'failed'
  /** Turned off (`INKPRESS_DYNAMODB_CLASS_ARCHIVE=false`). */
  | 'off'
  | 'stopped';

/**
 * Builds the archive unless it is built, failed before, or another build runs: the class path
 * first, then `record` runs DynamoDB Local with `-XX:ArchiveClassesAtExit=<archive.file>` through
 * the training and stops it (the JVM writes the archive as it exits), then the archive is verified
 * by a JVM that must map it (`-Xshare:on`) and renamed into place. Concurrent builds never clash:
 * one lock file per folder, temporary names, renames.
 */
export async function buildClassArchive(
  files: DynamoDbLocalFiles,
  record: (archive: ClassArchive, signal: AbortSignal) => Promise<void>,
  options: { signal: AbortSignal; jvmOptions: string[]; log?: (line: string) => void },
): Promise<ClassArchiveOutcome> {
  if (!classArchiveEnabled()) return 'off';
  const folder = classArchiveFolder(files);
  if (!folder) return 'failed';
  if (readyClassArchive(files)) return 'ready';
  const failed = `${folder}.failed`;
  if (existsSync(failed)) return 'failed';
  const release = takeLock(`${folder}.lock`);
  if (!release) return 'busy';
  const fail = (reason: string): ClassArchiveOutcome => {
    writeFileSync(failed, `${reason}\n`);
    options.log?.(`DynamoDB Local class archive: not built (${reason}); starts stay as they were.`);
    return 'failed';
  };
  try {
    const classPath = await preparedClassPath(files, folder).catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? undefined : Promise.reject(error),
    );
    if (!classPath) return fail('no `jar` tool: install a JDK');
    // Left by a build that died (only the lock's holder builds).
    for (const name of readdirSync(folder))
      if (name.endsWith('.building.jsa')) rmSync(path.join(folder, name));
    const building = path.join(folder, `dynamodb-local.${process.pid}-${Date.now()}.building.jsa`);
    try {
      await record({ file: building, classPath }, options.signal);
      if (options.signal.aborted) return 'stopped';
      // Not for good: the JVM may have been killed by the exit time-out on a very busy machine.
      if (!existsSync(building)) throw new Error('the training JVM wrote no archive');
      const verified = await run(
        'java',
        [
          ...options.jvmOptions,
          CRASH_REPORT_OPTION,
          '-Xshare:on',
          `-XX:SharedArchiveFile=${building}`,
          '-cp',
          classPath.join(path.delimiter),
          '-version',
        ],
        { cwd: files.home, signal: options.signal },
      ).then(
        () => '',
        (error: { stderr?: string; message: string }) => firstLine(error.stderr) || error.message,
      );
      if (options.signal.aborted) return 'stopped';
      if (verified) return fail(`the JVM refused the archive: ${verified}`);
      const archive = path.join(folder, ARCHIVE);
      renameSync(building, archive);
      const stat = statSync(archive);
      const entry: ArchiveRecord = {
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        classPath,
        java: javaFingerprint() ?? '',
      };
      writeFileSync(`${path.join(folder, RECORD)}.${process.pid}`, JSON.stringify(entry));
      renameSync(`${path.join(folder, RECORD)}.${process.pid}`, path.join(folder, RECORD));
      return 'built';
    } finally {
      rmSync(building, { force: true });
    }
  } catch (error) {
    if (options.signal.aborted) return 'stopped';
    throw error;
  } finally {
    release();
  }
}

/** The class path Java can record an archive with (see the top), built once into `folder`. */
async function preparedClassPath(files: DynamoDbLocalFiles, folder: string): Promise<string[]> {
  const listFile = path.join(folder, 'class-path.txt');
  const classPathIn = (libraries: string[]) => [
    path.join(folder, 'DynamoDBLocal.jar'),
    path.join(folder, 'launcher.jar'),
    ...libraries,
  ];
  if (existsSync(listFile)) return classPathIn(readFileSync(listFile, 'utf8').split('\n').filter(Boolean));
  const building = mkdtempSync(`${folder}-building-`);
  try {
    const extracted = path.join(building, 'extracted');
    mkdirSync(extracted);
    await run('jar', ['xf', files.jar], { cwd: extracted });
    const manifestFile = path.join(extracted, 'META-INF', 'MANIFEST.MF');
    const libraries = manifestClassPath(readFileSync(manifestFile, 'utf8'))
      .filter((entry) => entry.endsWith('.jar'))
      .map((entry) => path.join(files.home, entry));
    const missing = libraries.find((library) => !existsSync(library));
    if (missing) throw new Error(`DynamoDB Local's manifest names ${missing}, which is missing`);
    rmSync(manifestFile);
    await run('jar', ['cfM', path.join(building, 'DynamoDBLocal.jar'), '-C', extracted, '.']);
    await run('jar', ['cfM', path.join(building, 'launcher.jar'), '-C', files.launcherClasses, '.']);
    rmSync(extracted, { recursive: true });
    writeFileSync(path.join(building, 'class-path.txt'), `${libraries.join('\n')}\n`);
    try {
      renameSync(building, folder);
    } catch (error) {
      if (!existsSync(listFile)) throw error; // else another build made it at the same time
    }
    return classPathIn(libraries);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/** The entries of a manifest's `Class-Path` (its lines are cut at 72 bytes, continued after a space). */
export function manifestClassPath(manifest: string): string[] {
  const joined = manifest.replace(/\r?\n /g, '');
  const line = /^Class-Path: *(.*)$/m.exec(joined)?.[1] ?? '';
  return line.split(/\s+/).filter(Boolean);
}

/** One build per folder at a time: a lock file with the builder's pid (a dead builder's is taken over). */
function takeLock(file: string): (() => void) | undefined {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return undefined;
      rmSync(file, { force: true });
    }
  }
  return undefined;
}

/** The real path, size and time of the `java` on PATH and of its libjvm; undefined without one. */
let javaFingerprintCache: { path: string; value: string | undefined } | undefined;
function javaFingerprint(): string | undefined {
  const searchPath = process.env.PATH ?? '';
  if (javaFingerprintCache?.path === searchPath) return javaFingerprintCache.value;
  let value: string | undefined;
  for (const folder of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(folder, process.platform === 'win32' ? 'java.exe' : 'java');
    if (!existsSync(candidate)) continue;
    const java = realpathSync(candidate);
    const home = path.dirname(path.dirname(java));
    value = [java, path.join(home, 'lib', 'server', 'libjvm.so'), path.join(home, 'lib', 'modules')]
      .filter((file) => existsSync(file))
      .map((file) => {
        const stat = statSync(file);
        return `${file}:${stat.size}:${stat.mtimeMs}`;
      })
      .join(' ');
    break;
  }
  javaFingerprintCache = { path: searchPath, value };
  return value;
}

function firstLine(text: string | undefined): string {
  return (
    (text ?? '')
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}
