/**
 * Gives one integration test file its own tables, queues and key in the shared emulators,
 * and points the functions' environment at them. Call it in `beforeAll`, then import the
 * handlers (dynamically), so that they read this environment at their cold start.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type ProvisionedResources, provision } from '../../local/provision';
import { UNLIMITED_RATE } from './unlimited-rate';

/** Private site addresses (the fakes listen on 127.0.0.1), and no rate limit met. */
const TEST_DEFAULTS = { INKPRESS_ALLOW_PRIVATE_URLS: 'true', ...UNLIMITED_RATE };

export async function provisionTestResources(
  extraEnv: Record<string, string> = {},
): Promise<ProvisionedResources> {
  if (!process.env.AWS_ENDPOINT_URL_DYNAMODB) {
    throw new Error(
      'Emulators are not running: integration tests must run through the jest integration project.',
    );
  }
  const clients = { dynamodb: new DynamoDBClient({}), sqs: new SQSClient({}), kms: new KMSClient({}) };
  try {
    const resources = await provision(clients, { prefix: `test-${randomBytes(4).toString('hex')}` });
    Object.assign(process.env, resources.env, TEST_DEFAULTS, extraEnv);
    return resources;
  } finally {
    clients.dynamodb.destroy();
    clients.sqs.destroy();
    clients.kms.destroy();
  }
}
