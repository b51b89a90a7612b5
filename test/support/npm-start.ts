/**
 * Drives `npm start` and the local API as a user would, for the supervision tests: start it as its
 * own process group, create and list articles over HTTP, wait for a state, see which processes
 * still use a data folder.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FakeOpenAi } from './fake-openai-server';

const repoRoot = path.resolve(__dirname, '..', '..');

/** The arguments `npm start` gives `node` (package.json's script): the tests run what it runs. */
export const NPM_START_ARGS: readonly string[] = (() => {
  const packageJson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  const [program, ...args] = String(packageJson.scripts.start).split(' ');
  if (program !== 'node') throw new Error(`npm start no longer runs node: ${packageJson.scripts.start}`);
  return args;
})();

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

export function createArticle(baseUrl: string, token: string, keyword: string): Promise<Response> {
  return fetch(`${baseUrl}/v1/articles/create`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      keyword,
      h2_count: '2',
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
      need_bold: '0',
    }).toString(),
  });
}

export async function acceptAll(baseUrl: string, token: string, keywords: string[]): Promise<string[]> {
  const uuids: string[] = [];
  for (const keyword of keywords) {
    const response = await createArticle(baseUrl, token, keyword);
    expect(response.status).toBe(202);
    uuids.push(((await response.json()) as { article_uuid: string }).article_uuid);
  }
  return uuids;
}

/** The uuids of the account's generated articles, each as often as it is listed. */
export async function generatedUuids(baseUrl: string, token: string): Promise<string[]> {
  const uuids: string[] = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${baseUrl}/v1/articles/list?page=${page}`, { headers: bearer(token) });
    if (response.status !== 200) throw new Error(`list answered ${response.status}`);
    const body = (await response.json()) as {
      data: { data: { uuid: string } }[];
      links: { next: string | null };
    };
    uuids.push(...body.data.map((item) => item.data.uuid));
    if (!body.links.next) return uuids;
  }
}

export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined as T);
    if ((value !== undefined && done(value)) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Outline requests the fake model received for each keyword, from `since` on. */
export function outlineCalls(fakeOpenAi: FakeOpenAi, keywords: string[], since = 0): number[] {
  const outlines = fakeOpenAi.requests
    .slice(since)
    .filter((request) => (request.response_format as { type?: string } | undefined)?.type === 'json_schema')
    .map((request) => JSON.stringify(request.messages));
  return keywords.map(
    (keyword) => outlines.filter((prompt) => prompt.includes(`keyword(s): ${keyword}`)).length,
  );
}

export function processesUsing(folder: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(folder));
}

export interface NpmStart {
  child: ChildProcess;
  baseUrl: string;
  token: string;
  accountId: string;
  output: () => string;
}

/** `npm start` as its own process group (what a terminal gives it), on a free API port. */
export async function npmStart(dataDir: string, fakeOpenAi: FakeOpenAi): Promise<NpmStart> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('AWS_')) env[name] = value;
  const child = spawn(process.execPath, NPM_START_ARGS, {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...env,
      PORT: '0',
      INKPRESS_DATA_DIR: dataDir,
      INKPRESS_SWEEP_SECONDS: '5',
      INKPRESS_LOG_REQUESTS: 'false',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: fakeOpenAi.baseURL,
    },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const banner = await eventually(
    async () => ({
      match: /API\s+(\S+)\n\s+Token\s+(\S+).*\n\s+Account\s+(\S+)/.exec(output),
      exited: child.exitCode,
    }),
    (state) => state.match !== null || state.exited !== null,
    90_000,
  );
  if (!banner.match) throw new Error(`npm start did not start:\n${output}`);
  const [, baseUrl = '', token = '', accountId = ''] = banner.match;
  return { child, baseUrl, token, accountId, output: () => output };
}

export function killProcessGroup(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-(child.pid ?? 0), 'SIGKILL');
  return exited;
}
