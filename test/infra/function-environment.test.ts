/**
 * Each function runs with exactly the environment the stack gives it (stack.test.ts pins the
 * template to `functionEnvironment`): invoked with its sample event from `events/`, no handler
 * may need a variable it does not get. AWS endpoints point at a closed local port, so every
 * AWS call fails fast; only configuration errors are checked here, not results.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  authorizer,
  type FunctionDefinition,
  generationWorker,
  routes,
  sweeper,
  webhookDispatcher,
} from '../../functions/routes';
import { BASE_ENVIRONMENT, repositoryRoot } from '../../lib/constructs/inkpress-function';
import { functionEnvironment } from '../../lib/constructs/service-functions';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

const CLOSED_ENDPOINT = 'http://127.0.0.1:9';

const RUNTIME_ENVIRONMENT = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_ENDPOINT_URL: CLOSED_ENDPOINT,
  AWS_MAX_ATTEMPTS: '1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
};

function sampleEvent(definition: FunctionDefinition): unknown {
  const relative =
    definition === authorizer
      ? 'authorizer.json'
      : definition === generationWorker
        ? 'worker/sqs-generation.json'
        : definition === sweeper
          ? 'sweeper/scheduled.json'
          : definition === webhookDispatcher
            ? 'worker/sqs-webhook.json'
            : `api/${path.basename(definition.entry, '.ts')}.json`;
  const event = JSON.parse(readFileSync(path.join(repositoryRoot, 'events', relative), 'utf8')) as Record<
    string,
    unknown
  >;
  if (definition.name === 'CreateWebsite') {
    // A site that can never resolve (RFC 2606), so the test makes no outbound call.
    return {
      ...event,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      multiValueHeaders: {},
      isBase64Encoded: false,
      body: 'url=https%3A%2F%2Fblog.inkpress.invalid&login=editor&password=secret',
    };
  }
  return event;
}

const originalEnvironment = process.env;
afterEach(() => {
  process.env = originalEnvironment;
});

describe('function environment', () => {
  it.each(
    [...routes, authorizer, generationWorker, sweeper, webhookDispatcher].map(
      (definition) => [definition.name, definition] as const,
    ),
  )('%s needs no variable beyond what the stack sets', async (_name, definition) => {
    process.env = {
      PATH: originalEnvironment.PATH,
      ...RUNTIME_ENVIRONMENT,
      ...BASE_ENVIRONMENT,
      ...functionEnvironment(definition.access, {
        tableName: (name) => `placeholder-${name}`,
        queueUrl: `${CLOSED_ENDPOINT}/000000000000/generation`,
        webhookQueueUrl: `${CLOSED_ENDPOINT}/000000000000/webhooks`,
        sitePasswordKeyId: '00000000-0000-0000-0000-000000000000',
        modelSecretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:placeholder',
      }),
    };
    const missing: string[] = [];
    await jest.isolateModulesAsync(async () => {
      const env = require('../../functions/shared/env') as typeof import('../../functions/shared/env');
      const requireEnv = env.requireEnv;
      jest.spyOn(env, 'requireEnv').mockImplementation((name: string) => {
        if (process.env[name] === undefined || process.env[name] === '') missing.push(name);
        return requireEnv(name);
      });
      const { handler } = require(path.join(repositoryRoot, definition.entry)) as { handler: Handler };
      try {
        await handler(sampleEvent(definition), { awsRequestId: 'environment-test' });
      } catch {
        // Failed AWS calls are expected here; only missing variables count.
      }
    });
    expect(missing).toEqual([]);
  });
});
