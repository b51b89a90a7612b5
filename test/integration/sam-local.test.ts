/**
 * `sam local invoke` as the README describes it, without Docker: the template synthesized with
 * `-c samLocal=true` declares, per function, what `functionEnvironment` and
 * `samLocalDeclarations` give it; SAM sets each declared variable from the `--env-vars` file
 * (`npm run sam-env`) or leaves it at the template's value (a reference it cannot resolve becomes
 * ""), and ignores every other one. The bundles then run in a fresh process with exactly that,
 * against the emulators of a running local runtime.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { allFunctions, type FunctionDefinition, functionNamed } from '../../functions/routes';
import { BASE_ENVIRONMENT } from '../../lib/constructs/inkpress-function';
import { samLocalDeclarations } from '../../lib/constructs/sam-local';
import { functionEnvironment } from '../../lib/constructs/service-functions';
import { currentOwner } from '../../local/data-lock';
import { type LocalRuntime, startLocalRuntime } from '../../local/local-runtime';
import { samEnvFile } from '../../local/sam-env';
import { bundleBuilder, invokeBundle } from '../support/bundles';
import { apiEvent } from '../support/events';

/** What the template holds in place of a resource name, which SAM cannot resolve locally. */
const REFERENCE = '{"Ref":"…"}';

let dataDir: string;
let outDir: string;
let runtime: LocalRuntime;
const bundled = bundleBuilder(() => outDir);

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-sam-'));
  outDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-sam-bundles-'));
  runtime = await startLocalRuntime({
    port: 0,
    dataDir,
    sweepSeconds: 0,
    firstSweepAfterMs: 600_000,
    log: () => undefined,
  });
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(outDir, { recursive: true, force: true });
});

/** The variables a function's samLocal template declares, with their template values. */
function declared(definition: FunctionDefinition): Record<string, string> {
  return {
    ...samLocalDeclarations(definition.access),
    ...functionEnvironment(definition.access, {
      tableName: () => REFERENCE,
      queueUrl: REFERENCE,
      webhookQueueUrl: REFERENCE,
      sitePasswordKeyId: REFERENCE,
      modelSecretArn: REFERENCE,
    }),
    ...BASE_ENVIRONMENT,
  };
}

/** The environment SAM gives the function's container with the env file. */
function samEnvironment(definition: FunctionDefinition): NodeJS.ProcessEnv {
  const { Parameters } = samEnvFile(currentOwner(dataDir) ?? { pid: 0, watcherPid: 0, kind: 'runtime' });
  const environment: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1', // sam local invoke --region us-east-1
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
  for (const [name, value] of Object.entries(declared(definition))) {
    environment[name] = Parameters[name] ?? (value === REFERENCE ? '' : value);
  }
  return environment;
}

describe('sam local invoke with the env file of npm run sam-env', () => {
  it.each(allFunctions.map((definition) => [definition.name, definition] as const))(
    '%s gets a value for every resource its template names (the model secret aside: local mode)',
    (_name, definition) => {
      const environment = samEnvironment(definition);
      const unresolved = Object.entries(declared(definition))
        .filter(([name, value]) => value === REFERENCE && !environment[name])
        .map(([name]) => name);
      expect(unresolved).toEqual(definition.access.readsModelSecret ? ['OPENAI_SECRET_ARN'] : []);
      expect(environment.AWS_ENDPOINT_URL_DYNAMODB).toBe(runtime.endpoints.dynamodb);
      expect(environment.INKPRESS_LOCAL_MODE).toBe('true');
    },
  );

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
    const owner = currentOwner(dataDir);
    if (!owner) throw new Error('no runtime');
    const { Parameters } = samEnvFile(owner, 'host.docker.internal');
    const addresses = Object.values(Parameters).filter((value) => value.startsWith('http'));
    expect(addresses.length).toBeGreaterThanOrEqual(5);
    for (const address of addresses) expect(address).toMatch(/^http:\/\/host\.docker\.internal:\d+/);
  });
});
