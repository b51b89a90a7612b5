/**
 * The API's clients against the local runtime of `npm start` on a free port: `npx inkpress-mcp`
 * driven by the MCP SDK's own client over stdio (StdioClientTransport spawns the bin of
 * package.json: the tools are the API's operations, a call answers the API's JSON, an API error
 * is a tool error with the API's message), and the typed client's example run as its README says.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolName } from '../../clients/mcp/tools';
import { routes } from '../../functions/routes';
import type { LocalRuntime } from '../../local/local-runtime';
import { startAttachedRuntime } from '../support/attached-runtime';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(
  ROOT,
  (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin[
    'inkpress-mcp'
  ] ?? 'missing',
);

const execFileAsync = promisify(execFile);

let dataDir: string;
let runtime: LocalRuntime;
let client: Client;
const serverLog: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-mcp-'));
  runtime = await startAttachedRuntime({ port: 0, dataDir, sweepSeconds: 0, log: () => undefined });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: { INKPRESS_URL: runtime.baseUrl, INKPRESS_TOKEN: runtime.token },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => serverLog.push(chunk.toString()));
  client = new Client({ name: 'inkpress-test', version: '1.0.0' });
  await client.connect(transport, { timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await client?.close();
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult, index = 0): string {
  const item = result.content[index];
  if (item?.type !== 'text') throw new Error(`No text at ${index}: ${JSON.stringify(result)}`);
  return item.text;
}

describe('npx inkpress-mcp over stdio', () => {
  it('is the bin of package.json: an executable node script', () => {
    expect(readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(() => accessSync(BIN, constants.X_OK)).not.toThrow();
  });

  it('lists one tool per operation that takes a token, with the API schemas as input schemas', async () => {
    const { tools } = await client.listTools();
    const expected = routes.filter((route) => !route.public).map((route) => toolName(route.name));
    expect(tools.map((tool) => tool.name).sort()).toEqual([...expected].sort());

    const create = tools.find((tool) => tool.name === 'create_article');
    expect(create?.description).toMatch(/^Queue an article for generation\./);
    expect(create?.inputSchema.required).toEqual(['keyword']);
    expect(create?.inputSchema.properties).toMatchObject({
      keyword: { type: 'string' },
      h2_count: { type: 'integer', minimum: 1, maximum: 10 },
      ai_model: { enum: ['gpt-3.5-turbo', 'gpt-4'] },
      language: { enum: expect.arrayContaining(['en', 'de']) },
      idempotency_key: { type: 'string' },
    });
    const show = tools.find((tool) => tool.name === 'show_article');
    expect(show?.inputSchema.required).toEqual(['article_uuid']);
    expect(show?.annotations?.readOnlyHint).toBe(true);
  });

  it('creates an article and shows it, answering the API JSON', async () => {
    const created = await call('create_article', {
      keyword: 'mcp servers for writers',
      h2_count: 2,
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
    });
    expect(created.isError).toBeFalsy();
    const answer = JSON.parse(textOf(created)) as { article_uuid: string; article_url: string };
    expect(answer.article_url).toBe(`${runtime.baseUrl}/v1/articles/${answer.article_uuid}/show`);

    const shown = await call('show_article', { article_uuid: answer.article_uuid });
    expect(shown.isError).toBeFalsy();
    const record = JSON.parse(textOf(shown)) as { data: { uuid: string; keyword?: string }; status: string };
    expect(record.data.uuid).toBe(answer.article_uuid);
    expect(['in_progress', 'generated']).toContain(record.status);

    const account = JSON.parse(textOf(await call('show_account', {}))) as { data: { credits: number } };
    expect(account.data.credits).toBeLessThan(1000);
  });

  it("answers an API error as a tool error carrying the API's message", async () => {
    const missing = await call('show_article', { article_uuid: randomUUID() });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe('Inkpress answered 404: Article not found.');

    const invalid = await call('create_article', { h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en' });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toBe('Inkpress answered 422: The keyword field is required.');
    expect(JSON.parse(textOf(invalid, 1))).toMatchObject({
      errors: { keyword: ['The keyword field is required.'] },
    });
  });

  it('refuses an argument the operation does not take, without calling the API', async () => {
    const result = await call('show_account', { page: 2 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('show_account takes no argument named page.');
  });

  it('stops at once with a message on stderr when INKPRESS_TOKEN is missing', () => {
    const run = spawnSync(process.execPath, [BIN], {
      env: { PATH: process.env.PATH, INKPRESS_URL: runtime.baseUrl },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^inkpress-mcp: INKPRESS_TOKEN is not set/);
  });
});

describe('the typed client example', () => {
  it('runs as its README says, with npx tsx, on the port given by PORT', async () => {
    const port = new URL(runtime.baseUrl).port;
    // Not spawnSync: the local API answers from this process's event loop.
    const run = await execFileAsync(
      path.join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['clients/typescript/example.ts'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, PORT: port, INKPRESS_TOKEN: runtime.token },
        encoding: 'utf8',
        timeout: 90_000,
      },
    );
    expect(run.stderr).toBe('');
    const [info, status, balance] = run.stdout.trim().split('\n');
    expect(info).toMatch(
      /^The article is on the waiting list\. Follow its progress at http:\/\/127\.0\.0\.1:/,
    );
    expect(['in_progress', 'generated']).toContain(status);
    expect(balance).toMatch(/^\d+ \d+$/);
  }, 100_000);
});
