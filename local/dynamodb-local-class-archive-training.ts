/**
 * Builds DynamoDB Local's class archive (`dynamodb-local-class-archive.ts`) in the background: a
 * DynamoDB Local on a free port with a temporary data folder gets the kinds of requests Inkpress
 * makes (the tables with their indexes and time to live, conditional puts and updates,
 * transactions, queries of tables and indexes, scans, batches, the errors of failed conditions),
 * so that the classes those load are in the archive, then stops and writes it. About 12 s of CPU,
 * once per DynamoDB Local, launcher and JVM. Started by the integration tests' global set-up and
 * by `npm start` when the archive is missing; nobody waits for it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { type TableDefinition, tableDefinitions } from '../functions/adapters/dynamodb/table-definitions';
import {
  buildClassArchive,
  type ClassArchive,
  type ClassArchiveOutcome,
  readyClassArchive,
} from './dynamodb-local-class-archive';
import { dynamoDbLocalInstall, FAST_START_JVM_OPTIONS, startDynamoDbLocal } from './emulators';
import { provisionTables } from './provision';

export interface ClassArchiveTraining {
  /** What became of it (never rejects). */
  done: Promise<ClassArchiveOutcome>;
  /** Ends the training at once (nothing is written) and waits until its JVM is gone. */
  stop(): Promise<ClassArchiveOutcome>;
}

/** How long the training's DynamoDB Local may take to write the archive and exit. */
const EXIT_TIMEOUT_MS = 120_000;

/**
 * Starts building the archive unless it is there, failed before or is being built; `done` says
 * which. Errors are logged through `log` and never thrown: starts without the archive work as
 * before.
 */
export function startClassArchiveTraining(
  options: { log?: (line: string) => void; cache?: string } = {},
): ClassArchiveTraining {
  const controller = new AbortController();
  const done = train(controller.signal, options).catch((error: unknown) => {
    options.log?.(
      `DynamoDB Local class archive: not built (${error instanceof Error ? error.message : error}).`,
    );
    return 'failed' as const;
  });
  return {
    done,
    stop: () => {
      controller.abort();
      return done;
    },
  };
}

/** True when starts use the archive (no training needed); `cache` as in `startDynamoDbLocal`. */
export function classArchiveReady(options: { cache?: string } = {}): boolean {
  const { home, jar, launcher } = dynamoDbLocalInstall();
  if (!('classes' in launcher)) return false;
  return (
    readyClassArchive({ home, jar, launcherClasses: launcher.classes, cache: options.cache }) !== undefined
  );
}

async function train(
  signal: AbortSignal,
  options: { log?: (line: string) => void; cache?: string },
): Promise<ClassArchiveOutcome> {
  const { home, jar, launcher } = dynamoDbLocalInstall();
  if (!('classes' in launcher)) return 'failed';
  const files = { home, jar, launcherClasses: launcher.classes, cache: options.cache };
  return buildClassArchive(files, record, { signal, jvmOptions: FAST_START_JVM_OPTIONS, log: options.log });
}

/** One DynamoDB Local that records `archive` as it exits, after the training's requests. */
async function record(archive: ClassArchive, signal: AbortSignal): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-class-archive-'));
  try {
    const dynamodb = await startDynamoDbLocal({
      dataDir,
      fastStart: true,
      recordClassArchive: archive,
      startTimeoutMs: 120_000,
    });
    const child = dynamodb.process;
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    // Stopped: killed at once, before it writes anything.
    const kill = () => child.kill('SIGKILL');
    if (signal.aborted) kill();
    else signal.addEventListener('abort', kill, { once: true });
    try {
      if (!signal.aborted) await requests(dynamodb.endpoint, signal);
    } finally {
      if (!signal.aborted) child.kill('SIGTERM'); // the JVM writes the archive as it exits
      const timer = setTimeout(kill, EXIT_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      child.stdin?.destroy();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The kinds of requests Inkpress makes, on its own tables. */
async function requests(endpoint: string, signal: AbortSignal): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'training', secretAccessKey: 'training' },
  });
  // A refused request loads classes as well (and some are meant to be refused): only a stop ends it.
  const send = (command: object) =>
    (client.send as (command: object, options: object) => Promise<unknown>)
      .call(client, command, { abortSignal: signal })
      .catch((error: unknown) => {
        if (signal.aborted) throw error;
      });
  try {
    const { tableNames } = await provisionTables(client, { prefix: 'class-archive-training' });
    const tables = (Object.entries(tableNames) as [keyof typeof tableDefinitions, string][]).map(
      ([name, TableName]) => ({ TableName, definition: tableDefinitions[name] as TableDefinition }),
    );
    await send(new ListTablesCommand({}));
    for (const { TableName, definition } of tables) {
      const key = (id: string) => itemKey(definition, id);
      const item = (id: string) => ({ ...key(id), ...indexKeys(definition, id), body: { S: 'text' } });
      await send(new DescribeTableCommand({ TableName }));
      // Twice: the second put's condition fails (the classes of a refused write).
      for (let attempt = 0; attempt < 2; attempt++) {
        await send(
          new PutItemCommand({
            TableName,
            Item: item('1'),
            ConditionExpression: 'attribute_not_exists(#k)',
            ExpressionAttributeNames: { '#k': definition.partitionKey.name },
          }),
        );
      }
      await send(
        new UpdateItemCommand({
          TableName,
          Key: key('1'),
          UpdateExpression: 'SET #b = :b, #m = if_not_exists(#m, :zero) ADD #n :one REMOVE #gone',
          ConditionExpression: 'attribute_exists(#b) AND (attribute_not_exists(#n) OR #n < :max)',
          ExpressionAttributeNames: { '#b': 'body', '#m': 'made', '#n': 'count', '#gone': 'gone' },
          ExpressionAttributeValues: {
            ':b': { S: 'more' },
            ':zero': { N: '0' },
            ':one': { N: '1' },
            ':max': { N: '10' },
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      await send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              Put: {
                TableName,
                Item: item('2'),
                ConditionExpression: 'attribute_not_exists(#k)',
                ExpressionAttributeNames: { '#k': definition.partitionKey.name },
              },
            },
            {
              Update: {
                TableName,
                Key: key('1'),
                UpdateExpression: 'ADD #n :one',
                ExpressionAttributeNames: { '#n': 'count' },
                ExpressionAttributeValues: { ':one': { N: '1' } },
              },
            },
          ],
        }),
      );
      await send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName,
                Key: key('1'),
                ConditionExpression: 'attribute_not_exists(#b)',
                ExpressionAttributeNames: { '#b': 'body' },
              },
            },
            { Delete: { TableName, Key: key('2') } },
          ],
        }),
      );
      await send(new GetItemCommand({ TableName, Key: key('1'), ConsistentRead: true }));
      await send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: `#k = :k${definition.sortKey ? ' AND begins_with(#s, :s)' : ''}`,
          ExpressionAttributeNames: {
            '#k': definition.partitionKey.name,
            ...(definition.sortKey ? { '#s': definition.sortKey.name } : {}),
          },
          ExpressionAttributeValues: {
            ':k': key('1')[definition.partitionKey.name] as AttributeValue,
            ...(definition.sortKey ? { ':s': { S: 's' } } : {}),
          },
          ScanIndexForward: false,
          Limit: 10,
        }),
      );
      for (const index of definition.globalIndexes ?? []) {
        await send(
          new QueryCommand({
            TableName,
            IndexName: index.indexName,
            KeyConditionExpression: '#k = :k',
            FilterExpression: 'attribute_exists(#b)',
            ExpressionAttributeNames: { '#k': index.partitionKey.name, '#b': 'body' },
            ExpressionAttributeValues: { ':k': value(index.partitionKey.type, '1') },
            Limit: 5,
          }),
        );
      }
      await send(
        new ScanCommand({
          TableName,
          Limit: 5,
          FilterExpression: 'attribute_exists(#b)',
          ExpressionAttributeNames: { '#b': 'body' },
        }),
      );
      await send(
        new BatchWriteItemCommand({
          RequestItems: {
            [TableName]: [{ PutRequest: { Item: item('3') } }, { DeleteRequest: { Key: key('2') } }],
          },
        }),
      );
      await send(new BatchGetItemCommand({ RequestItems: { [TableName]: { Keys: [key('1'), key('3')] } } }));
      await send(new DeleteItemCommand({ TableName, Key: key('3'), ReturnValues: 'ALL_OLD' }));
    }
  } finally {
    client.destroy();
  }
}

function value(type: 'S' | 'N', id: string): AttributeValue {
  return type === 'N' ? { N: id } : { S: `s${id}` };
}

function itemKey(definition: TableDefinition, id: string): Record<string, AttributeValue> {
  return {
    [definition.partitionKey.name]: value(definition.partitionKey.type, id),
    ...(definition.sortKey ? { [definition.sortKey.name]: value(definition.sortKey.type, id) } : {}),
  };
}

function indexKeys(definition: TableDefinition, id: string): Record<string, AttributeValue> {
  return Object.fromEntries(
    (definition.globalIndexes ?? []).flatMap((index) =>
      [index.partitionKey, ...(index.sortKey ? [index.sortKey] : [])].map((key) => [
        key.name,
        value(key.type, id),
      ]),
    ),
  );
}
