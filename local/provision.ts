/**
 * Creates what the functions need in the local emulators, idempotently: the tables (from the
 * shared table definitions), the generation and webhook queues with their dead-letter queues,
 * and the KMS key.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateAliasCommand,
  CreateKeyCommand,
  DescribeKeyCommand,
  type KMSClient,
  NotFoundException,
} from '@aws-sdk/client-kms';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backfillQueuePositions } from '../functions/adapters/dynamodb/queue-positions';
import {
  type TableDefinition,
  type TableName,
  tableDefinitions,
} from '../functions/adapters/dynamodb/table-definitions';
import { backfillCheckIndex } from '../functions/adapters/dynamodb/website-repository';
import { QUEUE_RETENTION_SECONDS } from '../functions/core/articles/lifecycle-policy';
import {
  runtimeSettings,
  visibilityTimeoutSeconds,
  webhookSettings,
} from '../functions/shared/runtime-settings';

export interface ProvisionedResources {
  /** Environment variables that point the functions at the provisioned resources. */
  env: Record<string, string>;
  tableNames: Record<TableName, string>;
  queueUrl: string;
  webhookQueueUrl: string;
  keyId: string;
  imageBucket: string;
}

export async function provision(
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient; kms: KMSClient; s3?: S3Client },
  options: { prefix: string },
): Promise<ProvisionedResources> {
  const { tableNames, env } = await provisionTables(clients.dynamodb, options);
  const queueUrl = await ensureQueueWithDeadLetters(clients.sqs, `${options.prefix}-generation`, {
    VisibilityTimeout: String(visibilityTimeoutSeconds),
    MessageRetentionPeriod: String(QUEUE_RETENTION_SECONDS),
    maxReceiveCount: runtimeSettings.maxReceiveCount,
  });
  const webhookQueueUrl = await ensureQueueWithDeadLetters(clients.sqs, `${options.prefix}-webhooks`, {
    VisibilityTimeout: String(webhookSettings.visibilityTimeoutSeconds),
    maxReceiveCount: webhookSettings.maxReceiveCount,
  });
  const keyId = await ensureKey(clients.kms, `alias/${options.prefix}-site-passwords`);
  const imageBucket = `${options.prefix}-images`.toLowerCase();
  const s3 = clients.s3 ?? new S3Client({ forcePathStyle: true });
  try {
    await ensureBucket(s3, imageBucket);
  } finally {
    if (!clients.s3) s3.destroy();
  }
  Object.assign(env, {
    GENERATION_QUEUE_URL: queueUrl,
    WEBHOOK_QUEUE_URL: webhookQueueUrl,
    SITE_PASSWORD_KEY_ID: keyId,
    IMAGE_BUCKET_NAME: imageBucket,
  });
  return { env, tableNames, queueUrl, webhookQueueUrl, keyId, imageBucket };
}

/** The article image bucket (moto's S3, at AWS_ENDPOINT_URL_S3). */
async function ensureBucket(s3: S3Client, Bucket: string): Promise<void> {
  const exists = await s3.send(new HeadBucketCommand({ Bucket })).then(
    () => true,
    () => false,
  );
  if (!exists) await s3.send(new CreateBucketCommand({ Bucket }));
}

/** Creates the tables that are missing; returns their names and the variables that carry them. */
export async function provisionTables(
  dynamodb: DynamoDBClient,
  options: { prefix: string },
): Promise<{ tableNames: Record<TableName, string>; env: Record<string, string> }> {
  const tableNames = {} as Record<TableName, string>;
  const env: Record<string, string> = {};
  for (const [name, definition] of Object.entries(tableDefinitions) as [TableName, TableDefinition][]) {
    const tableName = `${options.prefix}-${definition.id}`;
    const existed = await ensureTable(dynamodb, tableName, definition);
    // Websites stored before the health-check index joined it join it now.
    if (existed && name === 'websites')
      await backfillCheckIndex(DynamoDBDocumentClient.from(dynamodb), tableName);
    // Queue entries stored before queue numbers get theirs (and are counted).
    if (existed && name === 'articles')
      await backfillQueuePositions(DynamoDBDocumentClient.from(dynamodb), tableName);
    tableNames[name] = tableName;
    env[definition.envVar] = tableName;
  }
  return { tableNames, env };
}

/**
 * Creates the table, or adds the indexes it lacks (local data outlives code changes: one
 * UpdateTable per index, as DynamoDB requires); true when it existed already.
 */
async function ensureTable(
  client: DynamoDBClient,
  TableName: string,
  definition: TableDefinition,
): Promise<boolean> {
  const existing = await client.send(new DescribeTableCommand({ TableName })).then(
    (described) => described.Table,
    (error: unknown) => {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    },
  );
  const indexes = definition.globalIndexes ?? [];
  const keys = [definition, ...indexes].flatMap((key) => [
    key.partitionKey,
    ...(key.sortKey ? [key.sortKey] : []),
  ]);
  const AttributeDefinitions = [
    ...new Map(keys.map((key) => [key.name, { AttributeName: key.name, AttributeType: key.type }])).values(),
  ];
  const keySchema = (key: Pick<TableDefinition, 'partitionKey' | 'sortKey'>) => [
    { AttributeName: key.partitionKey.name, KeyType: 'HASH' as const },
    ...(key.sortKey ? [{ AttributeName: key.sortKey.name, KeyType: 'RANGE' as const }] : []),
  ];
  const indexDefinition = (index: (typeof indexes)[number]) => ({
    IndexName: index.indexName,
    KeySchema: keySchema(index),
    Projection: { ProjectionType: 'ALL' as const },
  });
  if (existing) {
    const present = new Set((existing.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    for (const index of indexes.filter((each) => !present.has(each.indexName))) {
      await client.send(
        new UpdateTableCommand({
          TableName,
          AttributeDefinitions,
          GlobalSecondaryIndexUpdates: [{ Create: indexDefinition(index) }],
        }),
      );
    }
    return true;
  }
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions,
      KeySchema: keySchema(definition),
      GlobalSecondaryIndexes: indexes.length > 0 ? indexes.map(indexDefinition) : undefined,
    }),
  );
  if (definition.timeToLiveAttribute) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName,
        TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
      }),
    );
  }
  return false;
}

/** The queue and its `-dlq`, which takes a message after `maxReceiveCount` receives. */
async function ensureQueueWithDeadLetters(
  client: SQSClient,
  name: string,
  {
    maxReceiveCount,
    ...attributes
  }: { maxReceiveCount: number; VisibilityTimeout: string; MessageRetentionPeriod?: string },
): Promise<string> {
  const ensure = async (QueueName: string, Attributes: Record<string, string>) => {
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName, Attributes }));
    if (!QueueUrl) throw new Error(`CreateQueue returned no URL for ${QueueName}`);
    return QueueUrl;
  };
  const deadLetters = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: await ensure(`${name}-dlq`, {}),
      AttributeNames: ['QueueArn'],
    }),
  );
  const RedrivePolicy = JSON.stringify({
    deadLetterTargetArn: deadLetters.Attributes?.QueueArn,
    maxReceiveCount,
  });
  return ensure(name, { ...attributes, RedrivePolicy });
}

async function ensureKey(client: KMSClient, alias: string): Promise<string> {
  try {
    const { KeyMetadata } = await client.send(new DescribeKeyCommand({ KeyId: alias }));
    if (KeyMetadata?.KeyId) return KeyMetadata.KeyId;
  } catch (error) {
    if (!(error instanceof NotFoundException)) throw error;
  }
  const { KeyMetadata } = await client.send(
    new CreateKeyCommand({ Description: 'Inkpress site passwords (local)' }),
  );
  if (!KeyMetadata?.KeyId) throw new Error('CreateKey returned no key id');
  await client.send(new CreateAliasCommand({ AliasName: alias, TargetKeyId: KeyMetadata.KeyId }));
  return KeyMetadata.KeyId;
}
