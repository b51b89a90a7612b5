/**
 * Starts DynamoDB Local and moto_server once for all integration tests and exports their
 * endpoints in the standard AWS_ENDPOINT_URL_* variables (inherited by the test workers).
 */
import { startDynamoDbLocal, startMotoServer } from '../../local/emulators';

export default async function globalSetup(): Promise<void> {
  const [dynamodb, moto] = await Promise.all([startDynamoDbLocal(), startMotoServer()]);
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamodb.endpoint;
  process.env.AWS_ENDPOINT_URL_SQS = moto.endpoint;
  process.env.AWS_ENDPOINT_URL_KMS = moto.endpoint;
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = moto.endpoint;
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  (globalThis as { inkpressEmulators?: unknown }).inkpressEmulators = [dynamodb, moto];
}
