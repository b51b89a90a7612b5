/**
 * Each function runs with exactly the environment the stack gives it (stack.test.ts pins the
 * template to `functionEnvironment`): loaded as in Lambda (composed at init) and invoked with
 * its sample event from `events/`, no handler may need a variable or a table it does not get. AWS endpoints point at a closed local port, so every
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
  if (definition.name === 'CreateWebsite' || definition.name === 'CheckWebsite') {
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
        imageBucketName: 'placeholder-images',
      }),
    };
    // As in Lambda: the handler composes at init, so a missing variable fails the require.
    process.env.AWS_LAMBDA_FUNCTION_NAME = `Inkpress-${definition.name}`;
    const configErrors: string[] = [];
    const collect = (error: unknown) => {
      if (error instanceof Error && error.name === 'ConfigError') configErrors.push(error.message);
    };
    await jest.isolateModulesAsync(async () => {
      const { logger } =
        require('../../functions/shared/logger') as typeof import('../../functions/shared/logger');
      for (const level of ['error', 'warn'] as const) {
        jest.spyOn(logger, level).mockImplementation((_message: unknown, ...extras: unknown[]) => {
          for (const extra of extras) collect((extra as { error?: unknown } | undefined)?.error);
        });
      }
      const { handler } = require(path.join(repositoryRoot, definition.entry)) as { handler: Handler };
      try {
        await handler(sampleEvent(definition), { awsRequestId: 'environment-test' });
      } catch (error) {
        // Failed AWS calls are expected here; only configuration errors count.
        collect(error);
      }
    });
    expect(configErrors).toEqual([]);
  });
});
