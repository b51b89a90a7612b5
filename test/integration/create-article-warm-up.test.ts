/**
 * CreateArticle's cold start (docs/decisions.md, "Configuration and composition"): its body
 * schema is not built at init but during its first request's rate-limit call, whatever becomes
 * of the request (a body that cannot be parsed never reaches the schema, yet it is built), and
 * once per process. zod calls `__zod_globalConfig.postProcessor` for each schema object it makes.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { coldStartHandler } from '../support/cold-start';
import { apiEvent } from '../support/events';
import { provisionTestResources } from '../support/test-resources';

type Handler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
const zodConfig = globalThis as { __zod_globalConfig?: { postProcessor?: () => void } };

beforeAll(async () => {
  await provisionTestResources();
});

afterEach(() => {
  delete zodConfig.__zod_globalConfig;
});

it('builds the create schema during the first request, not at init, and only once', async () => {
  let schemaObjects = 0;
  zodConfig.__zod_globalConfig = { postProcessor: () => schemaObjects++ };
  const handler = coldStartHandler<Handler>('functions/api/create-article.ts');
  const atInit = schemaObjects;

  const malformed = apiEvent('create-article', {
    accountId: 'warm-up-account',
    body: '{"keyword": ',
    contentType: 'application/json',
  });
  expect((await handler(malformed)).statusCode).toBe(400);
  const builtByFirstRequest = schemaObjects - atInit;
  expect(builtByFirstRequest).toBeGreaterThan(100);

  expect((await handler(malformed)).statusCode).toBe(400);
  expect(schemaObjects - atInit).toBe(builtByFirstRequest);
});
