/**
 * Starts DynamoDB Local and moto_server once for all integration tests and exports their
 * endpoints in the standard AWS_ENDPOINT_URL_* variables (inherited by the test workers).
 */
import { startDynamoDbLocal, startMotoServer } from '../../local/emulators';
import { emulatorClientEnv } from '../../local/local-config';

export default async function globalSetup(): Promise<void> {
  const [dynamodb, moto] = await Promise.all([startDynamoDbLocal(), startMotoServer()]);
  Object.assign(process.env, emulatorClientEnv({ dynamodb: dynamodb.endpoint, moto: moto.endpoint }));
  (globalThis as { inkpressEmulators?: unknown }).inkpressEmulators = [dynamodb, moto];
}
