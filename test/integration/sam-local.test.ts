/**
 * `sam local invoke` as docs/local-development.md describes it, without Docker: SAM gives each function the
 * variables its template (synthesized with `-c samLocal=true`) declares, set from the
 * `--env-vars` file (`npm run sam-env`) or else to the template's value, a reference to a
 * resource becoming that resource's logical id; it ignores every other variable. The bundles
 * then run in a fresh process with exactly that, against the emulators of a running local
 * runtime.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { allFunctions, type FunctionDefinition, functionNamed } from '../../functions/routes';
import { loadConfig } from '../../functions/shared/config';
import { repositoryRoot } from '../../lib/constructs/inkpress-function';
import { InkpressStack } from '../../lib/inkpress-stack';
import { runningRuntime } from '../../local/data-lock';
import type { LocalRuntime } from '../../local/local-runtime';
import { samEnvFile } from '../../local/sam-env';
import { startAttachedRuntime } from '../support/attached-runtime';
import { bundleBuilder, invokeBundle } from '../support/bundles';
import { apiEvent } from '../support/events';
import { templateOnlyApp } from '../support/template-only-context';

const tsxCli = require.resolve('tsx/cli');
let dataDir: string;
let outDir: string;
let runtime: LocalRuntime;
const bundled = bundleBuilder(() => outDir);

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-sam-'));
  outDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-sam-bundles-'));
  declaredByFunction = synthesizedDeclarations();
  runtime = await startAttachedRuntime({
    port: 0,
    dataDir,
    sweepSeconds: 0,
    firstSweepAfterMs: 600_000,
    log: () => undefined,
  });
  // The stack's synthesis (the runtime attaches to the global set-up's emulators under its own
  // prefix, test/support/attached-runtime.ts).
}, 240_000);

afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(outDir, { recursive: true, force: true });
});

/** Each function's declared variables in the samLocal template, as SAM reads them (a Ref: its logical id). */
let declaredByFunction: Map<string, Record<string, string>>;

function synthesizedDeclarations(): Map<string, Record<string, string>> {
  const app = templateOnlyApp({ samLocal: 'true' });
  const template = Template.fromStack(new InkpressStack(app, 'Inkpress'));
  const resources = template.findResources('AWS::Lambda::Function') as Record<
    string,
    { Properties: { Environment?: { Variables?: Record<string, unknown> } } }
  >;
  const declarations = new Map<string, Record<string, string>>();
  for (const definition of allFunctions) {
    const [, resource] =
      Object.entries(resources).find(([id]) => id.startsWith(`Functions${definition.name}`)) ?? [];
    const variables = resource?.Properties.Environment?.Variables ?? {};
    declarations.set(
      definition.name,
      Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : String((value as { Ref?: string }).Ref ?? ''),
        ]),
      ),
    );
  }
  return declarations;
}

function declared(definition: FunctionDefinition): Record<string, string> {
  const declarations = declaredByFunction.get(definition.name);
  if (!declarations) throw new Error(`${definition.name} is not in the template`);
  return declarations;
}

/** The environment SAM gives the function's container with the env file. */
function samEnvironment(
  definition: FunctionDefinition,
  options: Parameters<typeof samEnvFile>[1] = {},
): NodeJS.ProcessEnv {
  const owner = runningRuntime(dataDir);
  if (!owner) throw new Error('no runtime');
  const { Parameters } = samEnvFile(owner, options);
  const environment: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1', // sam local invoke --region us-east-1
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
  for (const [name, value] of Object.entries(declared(definition)))
    environment[name] = Parameters[name] ?? value;
  return environment;
}

describe('sam local invoke with the env file of npm run sam-env', () => {
  it.each(allFunctions.map((definition) => [definition.name, definition] as const))(
    '%s gets every resource its template names from the env file, and its configuration loads',
    (_name, definition) => {
      const environment = samEnvironment(definition);
      const fromTemplate = Object.entries(declared(definition))
        .filter(
          ([name, value]) => environment[name] === value && /^[A-Z][A-Za-z0-9]+[0-9A-F]{8}$/.test(value),
        )
        .map(([name]) => name);
      expect(fromTemplate).toEqual([]);
      expect(environment.AWS_ENDPOINT_URL_DYNAMODB).toBe(runtime.endpoints.dynamodb);
      expect(environment.INKPRESS_LOCAL_MODE).toBe('true');
      expect(() => loadConfig(environment, definition.access)).not.toThrow();
    },
  );

  it('npm run sam-env -- --out writes the file of the running npm start, and no file at all when none runs', () => {
    const out = path.join(dataDir, 'env.json');
    const run = (folder: string) =>
      spawnSync(process.execPath, [tsxCli, 'local/sam-env.ts', '--out', out], {
        cwd: repositoryRoot,
        env: { ...process.env, INKPRESS_DATA_DIR: folder },
        encoding: 'utf8',
      });
    const nothingRunning = mkdtempSync(path.join(os.tmpdir(), 'inkpress-sam-none-'));
    try {
      const refused = run(nothingRunning);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('no npm start is running');
      expect(existsSync(out)).toBe(false);
    } finally {
      rmSync(nothingRunning, { recursive: true, force: true });
    }
    const written = run(dataDir);
    expect(written.status).toBe(0);
    expect(written.stdout).toBe('');
    const owner = runningRuntime(dataDir);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(owner && samEnvFile(owner));
  });

  it('the worker writes offline, or with --model through the model of the shell that made the file', () => {
    const worker = functionNamed('GenerationWorker');
    expect(loadConfig(samEnvironment(worker), worker.access).model).toBeUndefined();
    const shell = { ...process.env };
    try {
      process.env.OPENAI_API_KEY = 'sk-from-the-shell';
      process.env.OPENAI_BASE_URL = 'http://127.0.0.1:9/v1';
      expect(loadConfig(samEnvironment(worker), worker.access).model).toBeUndefined();
      const model = loadConfig(samEnvironment(worker, { model: true }), worker.access).model;
      expect(model).toMatchObject({ apiKey: 'sk-from-the-shell', baseURL: 'http://127.0.0.1:9/v1' });
      expect(model?.secretArn).toBeUndefined();
    } finally {
      process.env = shell;
    }
  });

  it('the bundles answer from the local tables and queue: an article is created, then shown', async () => {
    const invoke = async (name: string, event: unknown) => {
      const definition = functionNamed(name);
      const file = await bundled(name);
      return (await invokeBundle<APIGatewayProxyResult>(file, name, event, samEnvironment(definition)))
        .result;
    };
    const body = JSON.stringify({
      keyword: 'sam local',
      h2_count: 2,
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
    });
    const created = await invoke(
      'CreateArticle',
      apiEvent('create-article', { accountId: runtime.accountId, contentType: 'application/json', body }),
    );
    expect(created.statusCode).toBe(202);
    const articleUuid: string = JSON.parse(created.body).article_uuid;
    const shown = await invoke(
      'ShowArticle',
      apiEvent('show-article', {
        accountId: runtime.accountId,
        pathParameters: { article_uuid: articleUuid },
      }),
    );
    expect(shown.statusCode).toBe(200);
    expect(JSON.parse(shown.body).data).toMatchObject({ uuid: articleUuid });
  });

  it('a function without tables (the OpenAPI document) answers with no env file at all', async () => {
    const definition = functionNamed('OpenApiDocument');
    const environment: NodeJS.ProcessEnv = { PATH: process.env.PATH, AWS_REGION: 'us-east-1' };
    for (const [name, value] of Object.entries(declared(definition))) environment[name] = value;
    const file = await bundled(definition.name);
    const { result } = await invokeBundle<APIGatewayProxyResult>(
      file,
      definition.name,
      apiEvent('openapi-document'),
      environment,
    );
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).openapi).toMatch(/^3\.1/);
  });

  it('--host puts another host name in every address', () => {
    const owner = runningRuntime(dataDir);
    if (!owner) throw new Error('no runtime');
    const { Parameters } = samEnvFile(owner, { host: 'host.docker.internal' });
    const addresses = Object.values(Parameters).filter((value) => value.startsWith('http'));
    expect(addresses.length).toBeGreaterThanOrEqual(5);
    for (const address of addresses) expect(address).toMatch(/^http:\/\/host\.docker\.internal:\d+/);
  });
});
