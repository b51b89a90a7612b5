/**
 * `npm start` is restart-safe, with real processes: a `kill -9` of its whole process group while
 * articles are waiting and being generated, then a start on the same data, generates every
 * accepted article once and charges it once; a `kill -9` of the runtime alone leaves no emulator
 * behind. The model is the fake OpenAI server, slowed down. (Emulator deaths under a running
 * runtime: local-supervision-emulators.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoAccountRepository } from '../../functions/adapters/dynamodb/account-repository';
import { tableDefinitions } from '../../functions/adapters/dynamodb/table-definitions';
import { priceOf } from '../../functions/core/pricing';
import { currentOwner } from '../../local/data-lock';
import { LOCAL_PREFIX, localDefaults } from '../../local/local-config';
import { type FakeOpenAi, startFakeOpenAi } from '../support/fake-openai-server';
import {
  acceptAll,
  eventually,
  generatedUuids,
  killProcessGroup,
  type NpmStart,
  npmStart,
  outlineCalls,
  processesUsing,
} from '../support/npm-start';

const repoRoot = path.resolve(__dirname, '..', '..');
const PRICE = priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 2, needBold: false });
const START_CREDITS = localDefaults.account.credits;

let fakeOpenAi: FakeOpenAi;

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
});

afterAll(async () => {
  await fakeOpenAi.close();
});

/** Credits of an account, read from the DynamoDB Local of the running `npm start`. */
async function creditsOf(dataDir: string, accountId: string): Promise<number | undefined> {
  const endpoint = currentOwner(dataDir)?.dynamodbEndpoint;
  const client = new DynamoDBClient({ endpoint });
  try {
    const accounts = new DynamoAccountRepository(
      DynamoDBDocumentClient.from(client),
      `${LOCAL_PREFIX}-${tableDefinitions.accounts.id}`,
    );
    return (await accounts.get(accountId))?.credits;
  } finally {
    client.destroy();
  }
}

/**
 * One data folder through three starts: the second test kills the runtime the first one started
 * last (each start is ~8 s of CPU: DynamoDB Local, moto_server and the runtime), or starts its
 * own when the first failed before it had one.
 */
describe('npm start killed with kill -9, then started again on the same data', () => {
  let dataDir: string;
  /** The `npm start` still running at the end of a test, for the next one. */
  let running: NpmStart | undefined;

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-supervision-'));
  });

  afterAll(async () => {
    if (running) await killProcessGroup(running.child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('of the whole process group: the next start generates every accepted article once and charges it once', async () => {
    // Slow enough that at the kill some articles are being generated and the others wait.
    fakeOpenAi.behaviour = { latencyMs: 1_500 };
    const first = await npmStart(dataDir, fakeOpenAi);
    const keywords = Array.from({ length: 14 }, (_, n) => `restart${String(n).padStart(2, '0')}`);
    const uuids = await acceptAll(first.baseUrl, first.token, keywords);
    await eventually(
      async () => outlineCalls(fakeOpenAi, keywords).filter((calls) => calls > 0).length,
      (started) => started >= 3,
      30_000,
    );
    await killProcessGroup(first.child);

    fakeOpenAi.behaviour = { latencyMs: 100 };
    const callsBeforeRestart = fakeOpenAi.requests.length;
    const second = await npmStart(dataDir, fakeOpenAi);
    running = second;
    expect(second.token).toBe(first.token);
    await eventually(
      () => generatedUuids(second.baseUrl, second.token),
      (listed) => uuids.every((uuid) => listed.includes(uuid)),
      120_000,
    );
    if (process.env.DEBUG_SUPERVISION) console.log(second.output());
    expect((await generatedUuids(second.baseUrl, second.token)).sort()).toEqual([...uuids].sort());
    expect(second.output()).toMatch(
      /\d+ article\(s\) were waiting or being generated when Inkpress last stopped/,
    );
    expect(await creditsOf(dataDir, second.accountId)).toBe(START_CREDITS - uuids.length * PRICE);
    // After the restart, no article's generation started twice.
    expect(Math.max(...outlineCalls(fakeOpenAi, keywords, callsBeforeRestart))).toBeLessThanOrEqual(1);
  }, 240_000);

  it('of the runtime process alone: no emulator is left behind, and the next start finds the data folder free', async () => {
    running ??= await npmStart(dataDir, fakeOpenAi);
    const killed = running;
    expect(processesUsing(dataDir)).toHaveLength(2); // DynamoDB Local and moto_server
    process.kill(currentOwner(dataDir)?.pid ?? 0, 'SIGKILL');
    running = undefined; // its process is gone: nothing for afterAll to kill
    const leftovers = await eventually(
      async () => processesUsing(dataDir),
      (left) => left.length === 0,
      15_000,
    );
    expect(leftovers).toEqual([]);
    const next = await npmStart(dataDir, fakeOpenAi);
    try {
      expect(next.token).toBe(killed.token);
      // The admin command the banner prints, run as printed in another terminal (no Inkpress
      // variables there), reaches this data folder.
      const printed = /Admin CLI \(in another terminal\): (.+)\n/.exec(next.output())?.[1] ?? '';
      expect(printed).toContain(`INKPRESS_DATA_DIR=${dataDir} `);
      const terminal: NodeJS.ProcessEnv = {};
      for (const [name, value] of Object.entries(process.env)) {
        if (!/^(AWS_|INKPRESS_)|_TABLE$/.test(name)) terminal[name] = value;
      }
      const shown = JSON.parse(
        execFileSync('sh', ['-c', printed], { cwd: repoRoot, env: terminal, encoding: 'utf8' }),
      );
      expect(shown.account_id).toBe(next.accountId);
    } finally {
      await killProcessGroup(next.child);
    }
    // A kill -9 of the whole process group leaves nothing running either.
    const afterGroupKill = await eventually(
      async () => processesUsing(dataDir),
      (left) => left.length === 0,
      10_000,
    );
    expect(afterGroupKill).toEqual([]);
  }, 180_000);
});
