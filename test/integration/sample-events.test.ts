/**
 * The sample events of `events/` (also for `sam local invoke`): one per route of the route
 * table, matching it, and each answered with JSON (never a 500) by its handler.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  ScheduledEvent,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { parseFormBody } from '../../functions/api/http/form-body';
import { generationWorker, type RouteDefinition, routes, sweeper } from '../../functions/routes';
import { lambdaContext } from '../../local/lambda-context';
import * as deps from '../support/deps';
import { loadEvent } from '../support/events';
import { provisionTestResources } from '../support/test-resources';

const repoRoot = path.resolve(__dirname, '..', '..');
const SAMPLE_ACCOUNT_ID = '00000000-0000-4000-8000-000000000001';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const baseName = (route: RouteDefinition) => path.basename(route.entry, '.ts');
const apiEventOf = (name: string) => loadEvent<APIGatewayProxyEvent>(`api/${name}.json`);
const templateParameters = (template: string) =>
  [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');

/** Every sample event of a route: `<handler file>.json`, plus `<handler file>-<method>.json` for other methods. */
function sampleEventsOf(route: RouteDefinition): string[] {
  return [
    baseName(route),
    ...route.methods.map((method) => `${baseName(route)}-${method.toLowerCase()}`),
  ].filter((name) => existsSync(path.join(repoRoot, 'events', 'api', `${name}.json`)));
}

type ProxyHandler = (event: APIGatewayProxyEvent, context: unknown) => Promise<APIGatewayProxyResult>;

function handlerOf<H>(entry: string): H {
  return (require(path.join(repoRoot, entry)) as { handler: H }).handler;
}

describe('sample events match the route table', () => {
  it.each(routes.map((route) => [route.name, route] as const))('%s has a sample event', (_name, route) => {
    expect(existsSync(path.join(repoRoot, 'events', 'api', `${baseName(route)}.json`))).toBe(true);
  });

  it.each(routes.flatMap((route) => sampleEventsOf(route).map((name) => [name, route] as const)))(
    'events/api/%s.json has the resource, method and path of its route',
    (name, route) => {
      const event = apiEventOf(name);
      expect(event.resource).toBe(route.path);
      expect(route.methods).toContain(event.httpMethod);
      if (name !== baseName(route)) expect(`${baseName(route)}-${event.httpMethod.toLowerCase()}`).toBe(name);
      let expectedPath = route.path;
      const parameters = templateParameters(route.path);
      for (const parameter of parameters) {
        const value = event.pathParameters?.[parameter];
        expect(value).toMatch(UUID);
        expectedPath = expectedPath.replace(`{${parameter}}`, value ?? '');
      }
      if (parameters.length === 0) expect(event.pathParameters).toBeNull();
      else expect(Object.keys(event.pathParameters ?? {}).sort()).toEqual([...parameters].sort());
      expect(event.path).toBe(expectedPath);
      expect(event.requestContext).toMatchObject({
        resourcePath: route.path,
        httpMethod: event.httpMethod,
        path: `/${event.requestContext.stage}${expectedPath}`,
      });
      // Public routes have no authorizer, so API Gateway sends no authorizer context.
      if (route.public) expect(event.requestContext.authorizer).toBeUndefined();
      else
        expect(event.requestContext.authorizer).toEqual({
          accountId: SAMPLE_ACCOUNT_ID,
          principalId: SAMPLE_ACCOUNT_ID,
        });
      expect(typeof event.isBase64Encoded).toBe('boolean');
    },
  );

  it('has no event in events/api that no route serves', () => {
    const known = new Set(routes.flatMap((route) => sampleEventsOf(route)));
    const files = readdirSync(path.join(repoRoot, 'events', 'api')).map((file) =>
      file.replace(/\.json$/, ''),
    );
    expect(files.filter((file) => !known.has(file))).toEqual([]);
  });

  it.each([
    ['create-article', ['keyword', 'h2_count', 'ai_model', 'language']],
    ['create-website', ['url', 'login', 'password']],
    ['check-website', ['url', 'login', 'password']],
  ])('%s carries a realistic form body with the required fields', async (name, required) => {
    const event = apiEventOf(name);
    const contentType = Object.entries(event.headers).find(
      ([key]) => key.toLowerCase() === 'content-type',
    )?.[1];
    expect(contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(event.isBase64Encoded).toBe(true);
    const fields = await parseFormBody({
      body: event.body,
      isBase64Encoded: event.isBase64Encoded,
      contentType,
    });
    for (const field of required) expect(fields[field]).toEqual(expect.any(String));
  });

  it('has a TOKEN authorizer event', () => {
    const event = loadEvent<APIGatewayTokenAuthorizerEvent>('authorizer.json');
    expect(event.type).toBe('TOKEN');
    expect(event.authorizationToken).toMatch(/^Bearer /);
    expect(event.methodArn).toMatch(/^arn:aws:execute-api:[\w-]+:\d{12}:\w+\/\w+\/GET\/v1\/languages$/);
  });

  it('has an SQS event for the worker with one generation message', () => {
    const event = loadEvent<SQSEvent>('worker/sqs-generation.json');
    expect(event.Records).toHaveLength(1);
    const [record] = event.Records;
    expect(record).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: expect.stringMatching(/^arn:aws:sqs:/),
      attributes: { ApproximateReceiveCount: '1' },
    });
    expect(Object.keys(JSON.parse(record?.body ?? '{}')).sort()).toEqual(['accountId', 'articleUuid']);
    expect(record?.md5OfBody).toBe(
      createHash('md5')
        .update(record?.body ?? '')
        .digest('hex'),
    );
  });

  it('has a ScheduledEvent for the sweeper', () => {
    const event = loadEvent<ScheduledEvent>('sweeper/scheduled.json');
    expect(event).toMatchObject({ 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} });
  });
});

describe('sample events fed to their handlers', () => {
  beforeAll(async () => {
    await provisionTestResources();
    await deps.accountStore().create({
      accountId: SAMPLE_ACCOUNT_ID,
      name: 'Sample account',
      credits: 100,
      dailyLimit: 100,
      generatedCount: 0,
      createdAt: new Date().toISOString(),
    });
  });

  const written = routes.filter((route) => existsSync(path.join(repoRoot, route.entry)));

  it.each(written.flatMap((route) => sampleEventsOf(route).map((name) => [name, route] as const)))(
    'events/api/%s.json gets a JSON answer, not a 500',
    async (name, route) => {
      const handler = handlerOf<ProxyHandler>(route.entry);
      const response = await handler(apiEventOf(name), lambdaContext(route.name, 29));
      expect(response.statusCode).toBeLessThan(500);
      if (route.name === 'DocsPage') {
        expect(response.headers?.['Content-Type']).toMatch(/^text\/html/);
        return;
      }
      expect(response.headers?.['Content-Type']).toMatch(/^application\/json/);
      expect(() => JSON.parse(response.body)).not.toThrow();
      if (route.name === 'ListLanguages') expect(response.statusCode).toBe(200);
    },
  );

  it('the worker takes the SQS event and answers with a batch response', async () => {
    if (!existsSync(path.join(repoRoot, generationWorker.entry))) return;
    const handler = handlerOf<(event: SQSEvent, context: unknown) => Promise<SQSBatchResponse>>(
      generationWorker.entry,
    );
    const response = await handler(
      loadEvent<SQSEvent>('worker/sqs-generation.json'),
      lambdaContext(generationWorker.name, 300),
    );
    expect(response?.batchItemFailures ?? []).toEqual(expect.any(Array));
  });

  it('the sweeper takes the ScheduledEvent', async () => {
    if (!existsSync(path.join(repoRoot, sweeper.entry))) return;
    const handler = handlerOf<(event: ScheduledEvent, context: unknown) => Promise<unknown>>(sweeper.entry);
    await handler(loadEvent<ScheduledEvent>('sweeper/scheduled.json'), lambdaContext(sweeper.name, 300));
  });
});
