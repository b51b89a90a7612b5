/**
 * DynamoDB Local's class archive with real Java, in a cache folder of this file's own: built once
 * by a training even when two start at the same time, used by a start that then serves requests and
 * keeps its data across a restart, and never in the way: an archive written over, cut short or
 * from another JVM still gives a working start. (What it saves is measured by
 * `npm run bench:dynamodb-local`, not here.)
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { classArchiveFolder } from '../../local/dynamodb-local-class-archive';
import {
  classArchiveReady,
  startClassArchiveTraining,
} from '../../local/dynamodb-local-class-archive-training';
import { dynamoDbLocalInstall, type RunningEmulator, startDynamoDbLocal } from '../../local/emulators';

let cache: string;
let folder: string;
const startedAt = Date.now();
const running: RunningEmulator[] = [];

beforeAll(() => {
  // This file tests the archive itself, also in a run that turned it off for everything else.
  delete process.env.INKPRESS_DYNAMODB_CLASS_ARCHIVE;
  cache = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'inkpress-class-archive-cache-')));
  const { home, jar, launcher } = dynamoDbLocalInstall();
  if (!('classes' in launcher)) throw new Error(`no DynamoDB Local launcher: ${launcher.problem}`);
  folder = classArchiveFolder({ home, jar, launcherClasses: launcher.classes, cache }) ?? '';
  expect(folder).not.toBe('');
});

afterAll(async () => {
  await Promise.all(running.map((emulator) => emulator.stop()));
  rmSync(cache, { recursive: true, force: true });
  // Crash reports of the JVM that was given a cut-short archive.
  for (const name of readdirSync(os.tmpdir()).filter((each) =>
    each.startsWith('inkpress-dynamodb-local-hs_err'),
  )) {
    const file = path.join(os.tmpdir(), name);
    if (statSync(file).mtimeMs >= startedAt) rmSync(file, { force: true });
  }
});

const archiveFile = () => path.join(folder, 'dynamodb-local.jsa');
const recordFile = () => path.join(folder, 'dynamodb-local.jsa.json');

async function start(dataDir?: string): Promise<RunningEmulator> {
  const emulator = await startDynamoDbLocal({ dataDir, fastStart: true, classArchive: { cache } });
  running.push(emulator);
  return emulator;
}

async function stop(emulator: RunningEmulator): Promise<void> {
  await emulator.stop();
  running.splice(running.indexOf(emulator), 1);
}

/** Whether the JVM mapped the archive into its memory (undefined where there is no /proc). */
function mapsArchive(emulator: RunningEmulator): boolean | undefined {
  const maps = `/proc/${emulator.process.pid}/maps`;
  if (!existsSync(maps)) return undefined;
  return readFileSync(maps, 'utf8').includes(archiveFile());
}

function client(emulator: RunningEmulator): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: emulator.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
}

async function answersRequests(emulator: RunningEmulator): Promise<void> {
  const dynamodb = client(emulator);
  try {
    const { TableNames } = await dynamodb.send(new ListTablesCommand({}));
    expect(TableNames).toEqual(expect.any(Array));
  } finally {
    dynamodb.destroy();
  }
}

/** Puts the archive back in its record's place with other content (as a disk or a person might). */
let verifiedRecord: object;
let verifiedArchiveStart: Buffer;
function replaceArchive(content: Buffer, options: { keepRecord: boolean }): void {
  rmSync(archiveFile(), { force: true });
  writeFileSync(archiveFile(), content);
  if (options.keepRecord) {
    const stat = statSync(archiveFile());
    writeFileSync(
      recordFile(),
      JSON.stringify({ ...verifiedRecord, size: stat.size, mtimeMs: stat.mtimeMs }),
    );
  }
}

describe('building the archive', () => {
  it('builds it once when two trainings start at the same time, leaving one verified archive and nothing else', async () => {
    expect(classArchiveReady({ cache })).toBe(false);
    const first = startClassArchiveTraining({ cache });
    const second = startClassArchiveTraining({ cache });
    expect((await Promise.all([first.done, second.done])).sort()).toEqual(['built', 'busy']);
    expect(classArchiveReady({ cache })).toBe(true);
    verifiedRecord = JSON.parse(readFileSync(recordFile(), 'utf8'));
    verifiedArchiveStart = readFileSync(archiveFile()).subarray(0, 100_000);
    expect(readdirSync(folder).sort()).toEqual([
      'DynamoDBLocal.jar',
      'class-path.txt',
      'dynamodb-local.jsa',
      'dynamodb-local.jsa.json',
      'launcher.jar',
    ]);
    expect(readdirSync(cache).filter((name) => name.includes('building') || name.endsWith('.lock'))).toEqual(
      [],
    );
    // A later training leaves it as it is.
    const mtime = statSync(archiveFile()).mtimeMs;
    expect(await startClassArchiveTraining({ cache }).done).toBe('ready');
    expect(statSync(archiveFile()).mtimeMs).toBe(mtime);
  }, 240_000);
});

describe('a start with the archive', () => {
  it('maps it, answers DynamoDB requests and keeps its data folder across a restart', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-class-archive-data-'));
    try {
      const first = await start(dataDir);
      expect(mapsArchive(first)).not.toBe(false);
      let dynamodb = client(first);
      await dynamodb.send(
        new CreateTableCommand({
          TableName: 'notes',
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        }),
      );
      await dynamodb.send(
        new PutItemCommand({ TableName: 'notes', Item: { id: { S: 'n-1' }, text: { S: 'kept' } } }),
      );
      dynamodb.destroy();
      await stop(first);

      const second = await start(dataDir);
      expect(mapsArchive(second)).not.toBe(false);
      dynamodb = client(second);
      const { Item } = await dynamodb.send(
        new GetItemCommand({ TableName: 'notes', Key: { id: { S: 'n-1' } }, ConsistentRead: true }),
      );
      dynamodb.destroy();
      expect(Item).toEqual({ id: { S: 'n-1' }, text: { S: 'kept' } });
      await stop(second);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('starts without it when it was written over since it was verified', async () => {
    replaceArchive(Buffer.alloc(4096, 7), { keepRecord: false });
    expect(classArchiveReady({ cache })).toBe(false);
    const emulator = await start();
    expect(mapsArchive(emulator)).not.toBe(true);
    await answersRequests(emulator);
    await stop(emulator);
  }, 120_000);

  it('starts again without it when the JVM crashes on an archive cut short, and forgets that archive', async () => {
    // The record still matches, as after a disk fault: Java itself is given the broken file.
    replaceArchive(verifiedArchiveStart, { keepRecord: true });
    expect(classArchiveReady({ cache })).toBe(true);
    const emulator = await start();
    expect(mapsArchive(emulator)).not.toBe(true);
    await answersRequests(emulator);
    await stop(emulator);
    expect(existsSync(archiveFile())).toBe(false);
    expect(classArchiveReady({ cache })).toBe(false);
  }, 120_000);

  it('starts with an archive of another kind or JVM in its place (the JDK base archive)', async () => {
    const java = realpathSync(
      (process.env.PATH ?? '')
        .split(path.delimiter)
        .map((dir) => path.join(dir, 'java'))
        .find((candidate) => existsSync(candidate)) ?? 'java',
    );
    const base = path.join(path.dirname(path.dirname(java)), 'lib', 'server', 'classes.jsa');
    if (!existsSync(base)) return; // a JDK without a base archive: nothing foreign at hand
    replaceArchive(readFileSync(base), { keepRecord: true });
    const emulator = await start();
    await answersRequests(emulator);
    await stop(emulator);
  }, 120_000);
});
