/**
 * `npm run bench:dynamodb-local`: a DynamoDB Local start (fastStart, a fresh data folder, as a
 * local runtime starts it) until it answered ListTables and a CreateTable, with its class archive
 * and without (`dynamodb-local-class-archive.ts`), interleaved. Prints each start's wall time and
 * the CPU its JVM used until then (user and system, from /proc/<pid>/stat), and their ranges.
 * Builds the archive first when it is missing (about 12 s of CPU). Linux only (the CPU figures).
 *
 * Settings: BENCH_RUNS (8 of each).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { classArchiveReady, startClassArchiveTraining } from '../local/dynamodb-local-class-archive-training';
import { startDynamoDbLocal } from '../local/emulators';

const RUNS = Number(process.env.BENCH_RUNS ?? '8');
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS = 100;

interface Start {
  wallMs: number;
  userMs: number;
  systemMs: number;
}

async function oneStart(classArchive: boolean): Promise<Start> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'inkpress-bench-ddb-'));
  const started = performance.now();
  const dynamodb = await startDynamoDbLocal({ dataDir, fastStart: true, classArchive });
  const client = new DynamoDBClient({
    endpoint: dynamodb.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  try {
    await client.send(new ListTablesCommand({}));
    await client.send(
      new CreateTableCommand({
        TableName: 'bench',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    const wallMs = performance.now() - started;
    // Fields 14 and 15 (utime, stime) of /proc/<pid>/stat; the name in field 2 has no spaces here.
    const fields = readFileSync(`/proc/${dynamodb.process.pid}/stat`, 'utf8').split(' ');
    return {
      wallMs,
      userMs: (Number(fields[13]) * 1000) / TICKS,
      systemMs: (Number(fields[14]) * 1000) / TICKS,
    };
  } finally {
    client.destroy();
    await dynamodb.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const range = (values: number[]) => `${seconds(Math.min(...values))}-${seconds(Math.max(...values))}`;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

async function main(): Promise<void> {
  if (!classArchiveReady()) {
    console.log('Building the class archive first…');
    const outcome = await startClassArchiveTraining({ log: console.log }).done;
    if (outcome !== 'built' && outcome !== 'ready') throw new Error(`no class archive (${outcome})`);
  }
  const results = { with: [] as Start[], without: [] as Start[] };
  for (let run = 0; run < RUNS; run += 1) {
    for (const classArchive of run % 2 === 0 ? [true, false] : [false, true]) {
      const start = await oneStart(classArchive);
      results[classArchive ? 'with' : 'without'].push(start);
      console.log(
        `${classArchive ? 'with archive   ' : 'without archive'}  wall ${seconds(start.wallMs)} s  CPU ${seconds(start.userMs)} user + ${seconds(start.systemMs)} sys`,
      );
    }
  }
  console.log(`\nDynamoDB Local start to ListTables + CreateTable answered (${RUNS} of each, interleaved):`);
  for (const [name, starts] of Object.entries(results)) {
    const cpu = starts.map((start) => start.userMs + start.systemMs);
    console.log(
      `  ${name.padEnd(7)} archive: wall ${range(starts.map((start) => start.wallMs))} s (median ${seconds(median(starts.map((start) => start.wallMs)))}), CPU ${range(cpu)} s (median ${seconds(median(cpu))}; user ${range(starts.map((start) => start.userMs))}, sys ${range(starts.map((start) => start.systemMs))})`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
