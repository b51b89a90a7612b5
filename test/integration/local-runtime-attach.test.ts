/**
 * The local runtime attached to emulators it did not start (`attach` and `prefix`;
 * `INKPRESS_DYNAMODB_ENDPOINT`, `INKPRESS_MOTO_ENDPOINT` and `INKPRESS_RESOURCE_PREFIX` for
 * `npm start`): here the global set-up's DynamoDB Local and moto_server, which one runtime in
 * this process and one `npm start` in a child process share, each under its own prefix.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DescribeTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DescribeKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { currentOwner, type Owner } from '../../local/data-lock';
import { type LocalRuntime, startLocalRuntime } from '../../local/local-runtime';
import { samEnvFile } from '../../local/sam-env';
import { sharedEmulators, startAttachedRuntime, uniquePrefix } from '../support/attached-runtime';
import { NPM_START_ARGS } from '../support/npm-start';

const repoRoot = path.resolve(__dirname, '..', '..');
/** The environment before the runtime of this file set its own variables (for the child process). */
const baseEnv = { ...process.env };
const quiet = () => undefined;
const folders: string[] = [];
let runtime: LocalRuntime;

function folder(label: string): string {
  const made = mkdtempSync(path.join(os.tmpdir(), `inkpress-attach-${label}-`));
  folders.push(made);
  return made;
}

/** Clients of the shared emulators themselves, not of a runtime. */
function emulatorClients() {
  const { dynamodb, moto } = sharedEmulators();
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const settings = { region: 'us-east-1', credentials };
  return {
    dynamodb: new DynamoDBClient({ ...settings, endpoint: dynamodb }),
    sqs: new SQSClient({ ...settings, endpoint: moto }),
    kms: new KMSClient({ ...settings, endpoint: moto }),
    s3: new S3Client({ ...settings, endpoint: moto, forcePathStyle: true }),
    destroy() {
      for (const client of [this.dynamodb, this.sqs, this.kms, this.s3]) client.destroy();
    },
  };
}

/** Fails (connection refused) when an emulator was stopped. */
async function expectEmulatorsRunning(prefix: string): Promise<void> {
  const clients = emulatorClients();
  try {
    const { TableNames = [] } = await clients.dynamodb.send(new ListTablesCommand({ Limit: 100 }));
    expect(TableNames.length).toBeGreaterThan(0);
    await clients.dynamodb.send(new DescribeTableCommand({ TableName: `${prefix}-Accounts` }));
    await clients.sqs.send(new GetQueueUrlCommand({ QueueName: `${prefix}-generation` }));
    await clients.kms.send(new DescribeKeyCommand({ KeyId: `alias/${prefix}-site-passwords` }));
  } finally {
    clients.destroy();
  }
}

const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

/** `npm start` on the shared emulators, until its banner is printed. */
async function startNpmStart(prefix: string, dataDir: string) {
  const { dynamodb, moto } = sharedEmulators();
  const child = spawn(process.execPath, NPM_START_ARGS, {
    cwd: repoRoot,
    env: {
      ...baseEnv,
      INKPRESS_DATA_DIR: dataDir,
      PORT: '0',
      INKPRESS_DYNAMODB_ENDPOINT: dynamodb,
      INKPRESS_MOTO_ENDPOINT: moto,
      INKPRESS_RESOURCE_PREFIX: prefix,
      INKPRESS_SWEEP_SECONDS: '0',
      INKPRESS_LOG_REQUESTS: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await Promise.race([
    new Promise<void>((resolve) => {
      const check = () => (stdout.includes('Press Ctrl-C to stop.') ? resolve() : setTimeout(check, 100));
      check();
    }),
    exited.then((code) => {
      throw new Error(`npm start exited (${code}): ${stderr}${stdout}`);
    }),
  ]);
  const baseUrl = /API {9}(http:\S+)/.exec(stdout)?.[1] ?? '';
  const token = /Token {7}(ink_\S+)/.exec(stdout)?.[1] ?? '';
  return { child, baseUrl, token, banner: stdout, exited, stderr: () => stderr };
}

let other: Awaited<ReturnType<typeof startNpmStart>> | undefined;
let otherPrefix: string;
let otherDataDir: string;

beforeAll(async () => {
  otherPrefix = uniquePrefix('npm');
  otherDataDir = folder('npm');
  [runtime, other] = await Promise.all([
    startAttachedRuntime({
      port: 0,
      dataDir: folder('in-process'),
      sweepSeconds: 0,
      firstSweepAfterMs: 60_000,
      pollWaitSeconds: 1,
      log: quiet,
    }),
    startNpmStart(otherPrefix, otherDataDir),
  ]);
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  if (other && other.child.exitCode === null) {
    other.child.kill('SIGTERM');
    await other.exited;
  }
  for (const made of folders) rmSync(made, { recursive: true, force: true });
});

describe('attached to emulators it did not start', () => {
  it('provisions its tables, queues, key and bucket under its prefix in the emulators it was given', async () => {
    const { prefix, resources } = runtime;
    expect(runtime).toMatchObject({ attached: true, endpoints: sharedEmulators() });
    expect(prefix).toMatch(/^rt-[0-9a-f]{8}$/);
    const clients = emulatorClients();
    try {
      for (const tableName of Object.values(resources.tableNames)) {
        expect(tableName.startsWith(`${prefix}-`)).toBe(true);
        const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
        expect(Table?.TableStatus).toBe('ACTIVE');
      }
      for (const [queue, url] of [
        ['generation', resources.queueUrl],
        ['webhooks', resources.webhookQueueUrl],
      ]) {
        const { QueueUrl } = await clients.sqs.send(
          new GetQueueUrlCommand({ QueueName: `${prefix}-${queue}` }),
        );
        expect(QueueUrl).toBe(url);
        const { Attributes } = await clients.sqs.send(
          new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['RedrivePolicy'] }),
        );
        expect(Attributes?.RedrivePolicy).toContain(`${prefix}-${queue}-dlq`);
      }
      const { KeyMetadata } = await clients.kms.send(
        new DescribeKeyCommand({ KeyId: `alias/${prefix}-site-passwords` }),
      );
      expect(KeyMetadata?.KeyId).toBe(resources.keyId);
      expect(resources.imageBucket).toBe(`${prefix}-images`);
      await clients.s3.send(new HeadBucketCommand({ Bucket: resources.imageBucket }));
    } finally {
      clients.destroy();
    }
    // No emulator of its own: only the data folder's watcher.
    expect(runtime.emulatorPids).toEqual({ dynamodb: 0, moto: 0 });
    expect(runtime.childPids).toHaveLength(1);
    expect((await fetch(`${runtime.baseUrl}/v1/languages`, bearer(runtime.token))).status).toBe(200);
  });

  it('records its endpoint and prefix in the data folder, for the admin CLI and sam-env', () => {
    const owner = currentOwner(runtime.dataDir) as Owner;
    expect(owner).toMatchObject({
      kind: 'runtime',
      baseUrl: runtime.baseUrl,
      dynamodbEndpoint: sharedEmulators().dynamodb,
      prefix: runtime.prefix,
    });
    const { Parameters } = samEnvFile(owner);
    expect(Parameters).toMatchObject({
      ACCOUNTS_TABLE: `${runtime.prefix}-Accounts`,
      GENERATION_QUEUE_URL: runtime.resources.queueUrl,
      SITE_PASSWORD_KEY_ID: runtime.resources.keyId,
      AWS_ENDPOINT_URL_DYNAMODB: sharedEmulators().dynamodb,
      AWS_ENDPOINT_URL_SQS: sharedEmulators().moto,
    });
  });

  it('npm start attaches through INKPRESS_DYNAMODB_ENDPOINT, INKPRESS_MOTO_ENDPOINT and INKPRESS_RESOURCE_PREFIX, and says so', async () => {
    const { dynamodb, moto } = sharedEmulators();
    expect(other?.banner).toContain(
      `  Resources   ${otherPrefix}-* in DynamoDB at ${dynamodb}, SQS/KMS/S3 at ${moto} (started by you: Inkpress never stops them)`,
    );
    expect(currentOwner(otherDataDir)).toMatchObject({ prefix: otherPrefix, dynamodbEndpoint: dynamodb });
    expect((await fetch(`${other?.baseUrl}/v1/languages`, bearer(other?.token ?? ''))).status).toBe(200);
  });

  it("two runtimes on one emulator pair do not see each other's accounts, articles, queues or keys", async () => {
    const mine = runtime;
    const theirs = other as NonNullable<typeof other>;
    // Each one's token is unknown to the other (separate token tables).
    expect((await fetch(`${theirs.baseUrl}/v1/languages`, bearer(mine.token))).status).toBe(401);
    expect((await fetch(`${mine.baseUrl}/v1/languages`, bearer(theirs.token))).status).toBe(401);

    const created = await fetch(`${mine.baseUrl}/v1/articles/create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${mine.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        keyword: 'shared emulators',
        h2_count: 2,
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
      }),
    });
    expect(created.status).toBe(202);
    const { article_uuid: articleUuid } = (await created.json()) as { article_uuid: string };
    // Generated by this runtime's worker from this runtime's queue.
    const deadline = Date.now() + 60_000;
    let status = '';
    while (Date.now() < deadline) {
      const shown = await fetch(`${mine.baseUrl}/v1/articles/${articleUuid}/show`, bearer(mine.token));
      status = ((await shown.json()) as { status: string }).status;
      if (status === 'generated') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe('generated');
    const listed = await fetch(`${theirs.baseUrl}/v1/articles/list`, bearer(theirs.token));
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).not.toContain(articleUuid);

    // Different tables, queues, key and bucket, as the functions of each are told.
    const environment = (dataDir: string) => currentOwner(dataDir)?.functionEnvironment ?? {};
    const [a, b] = [environment(mine.dataDir), environment(otherDataDir)];
    for (const name of [
      'ACCOUNTS_TABLE',
      'API_TOKENS_TABLE',
      'ARTICLES_TABLE',
      'GENERATION_QUEUE_URL',
      'WEBHOOK_QUEUE_URL',
      'SITE_PASSWORD_KEY_ID',
      'IMAGE_BUCKET_NAME',
    ]) {
      expect(a[name]).toBeTruthy();
      expect(b[name]).toBeTruthy();
      expect(a[name]).not.toBe(b[name]);
    }
  }, 90_000);

  it('refuses a second runtime in the same process on other emulators or another prefix', async () => {
    await expect(
      startLocalRuntime({
        port: 0,
        dataDir: folder('second'),
        attach: sharedEmulators(),
        prefix: 'another-prefix',
        log: quiet,
      }),
    ).rejects.toThrow(/same emulators and prefix/);
    await expect(
      startLocalRuntime({ port: 0, dataDir: folder('third'), prefix: runtime.prefix, log: quiet }),
    ).rejects.toThrow(/same emulators and prefix/);
  });

  it('never stops the emulators it did not start, whether it is stopped in-process or npm start gets SIGTERM', async () => {
    const theirs = other as NonNullable<typeof other>;
    theirs.child.kill('SIGTERM');
    expect(await theirs.exited).toBe(0);
    expect(theirs.stderr()).toBe('');
    await expectEmulatorsRunning(otherPrefix);
    // The in-process runtime still works on them.
    expect((await fetch(`${runtime.baseUrl}/v1/languages`, bearer(runtime.token))).status).toBe(200);
    // Give the data folder's watcher of the child process time to do its clean-up.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await expectEmulatorsRunning(otherPrefix);

    await runtime.stop();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await expectEmulatorsRunning(runtime.prefix);
    await expectEmulatorsRunning(otherPrefix);
  }, 60_000);
});

describe('npm start too busy to handle a SIGTERM at once', () => {
  it('still stops cleanly once it runs again, and leaves the emulators it did not start running', async () => {
    const prefix = uniquePrefix('busy');
    const dataDir = folder('busy');
    const busy = await startNpmStart(prefix, dataDir);
    const runtimePid = currentOwner(dataDir)?.pid ?? 0;
    try {
      // The process running Inkpress gets no CPU for half a second, as on a machine under load.
      process.kill(runtimePid, 'SIGSTOP');
      busy.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 500));
      process.kill(runtimePid, 'SIGCONT');
      expect(await busy.exited).toBe(0);
      await expectEmulatorsRunning(prefix);
    } finally {
      if (busy.child.exitCode === null) busy.child.kill('SIGKILL');
      try {
        process.kill(runtimePid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 90_000);
});
