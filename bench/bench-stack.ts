/**
 * The stack the end-to-end benches run on: DynamoDB Local and moto provisioned as `npm start`
 * does, and the fake model, with this process's environment pointing the functions at them (their
 * clients and stores read it at first use).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { startDynamoDbLocal, startMotoServer } from '../local/emulators';
import { emulatorClientEnv } from '../local/local-config';
import { type ProvisionedResources, provision } from '../local/provision';
import { type FakeOpenAi, startFakeOpenAi } from '../test/support/fake-openai-server';

export interface BenchStack {
  fake: FakeOpenAi;
  resources: ProvisionedResources;
  stop(): Promise<void>;
}

export async function startBenchStack(options: { prefix: string; latencyMs: number }): Promise<BenchStack> {
  Object.assign(process.env, {
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    OPENAI_MAX_RETRIES: '0',
  });
  const fake = await startFakeOpenAi({ latencyMs: options.latencyMs });
  const [dynamodb, moto] = await Promise.all([startDynamoDbLocal({ fastStart: true }), startMotoServer()]);
  const stop = async () => {
    await Promise.all([dynamodb.stop(), moto.stop(), fake.close()]);
  };
  try {
    Object.assign(process.env, emulatorClientEnv({ dynamodb: dynamodb.endpoint, moto: moto.endpoint }), {
      OPENAI_API_KEY: 'sk-bench',
      OPENAI_BASE_URL: fake.baseURL,
    });
    const resources = await provision(
      { dynamodb: new DynamoDBClient({}), sqs: new SQSClient({}), kms: new KMSClient({}) },
      { prefix: options.prefix },
    );
    Object.assign(process.env, resources.env);
    return { fake, resources, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
