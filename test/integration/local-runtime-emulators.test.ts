/**
 * The local runtime with the emulators it starts itself (as `npm start` without
 * INKPRESS_DYNAMODB_ENDPOINT): both listen on 127.0.0.1 only, one runtime per data folder,
 * and a stop leaves no child process while the data (token, KMS key) survives a restart. The
 * rest of the runtime's behaviour is tested on the shared emulators in local-runtime.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { dataPaths } from '../../local/local-config';
import { type LocalRuntime, startLocalRuntime } from '../../local/local-runtime';
import { startInTemporaryFolder } from '../support/attached-runtime';
import { bearer, processesUsing } from '../support/npm-start';

const quiet = () => undefined;
let dataDir: string;
let runtime: LocalRuntime;

beforeAll(async () => {
  ({ dataDir, runtime } = await startInTemporaryFolder(startLocalRuntime));
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const call = (pathname: string, init: RequestInit = {}) => fetch(`${runtime.baseUrl}${pathname}`, init);

describe('the API on 127.0.0.1', () => {
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

  it('refuses a second runtime on the same data folder', async () => {
    await expect(startLocalRuntime({ port: 0, dataDir, log: quiet })).rejects.toThrow(/already running/);
  });
});

describe('stop and restart on the same data folder', () => {
  it('leaves no child process, then keeps the token and the KMS key across the restart', async () => {
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

    runtime = await startLocalRuntime({
      port: 0,
      dataDir,
      sweepSeconds: 0,
      firstSweepAfterMs: 60_000,
      log: quiet,
    });
    expect(runtime).toMatchObject({ token, accountId, accountCreated: false });
    const response = await call('/v1/languages', { headers: bearer(token) });
    expect(response.status).toBe(200);
    const after = kms();
    const { Plaintext } = await after.send(
      new DecryptCommand({ CiphertextBlob, EncryptionContext: encryptionContext }),
    );
    after.destroy();
    expect(Buffer.from(Plaintext ?? new Uint8Array()).toString()).toBe('site password');
  }, 120_000);
});
