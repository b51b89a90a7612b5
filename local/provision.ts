/**
 * Creates what the functions need in the local emulators, idempotently: the tables (from the
 * shared table definitions), the generation and webhook queues with their dead-letter queues,
 * and the KMS key.
 */
import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  type KeySchemaElement,
  ResourceNotFoundException,
  type TableDescription,
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
  deadLetterQueueUrl: string;
  webhookQueueUrl: string;
  keyId: string;
}

export async function provision(
  clients: { dynamodb: DynamoDBClient; sqs: SQSClient; kms: KMSClient },
  options: { prefix: string },
): Promise<ProvisionedResources> {
  const { tableNames, env } = await provisionTables(clients.dynamodb, options);

  const deadLetterQueueUrl = await ensureQueue(clients.sqs, `${options.prefix}-generation-dlq`, {});
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: deadLetterQueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const queueUrl = await ensureQueue(clients.sqs, `${options.prefix}-generation`, {
    VisibilityTimeout: String(visibilityTimeoutSeconds),
    MessageRetentionPeriod: String(QUEUE_RETENTION_SECONDS),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: Attributes?.QueueArn,
      maxReceiveCount: runtimeSettings.maxReceiveCount,
    }),
  });
  env.GENERATION_QUEUE_URL = queueUrl;

  const webhookDeadLetterUrl = await ensureQueue(clients.sqs, `${options.prefix}-webhooks-dlq`, {});
  const webhookDeadLetter = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: webhookDeadLetterUrl, AttributeNames: ['QueueArn'] }),
  );
  const webhookQueueUrl = await ensureQueue(clients.sqs, `${options.prefix}-webhooks`, {
    VisibilityTimeout: String(webhookSettings.visibilityTimeoutSeconds),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: webhookDeadLetter.Attributes?.QueueArn,
      maxReceiveCount: webhookSettings.maxReceiveCount,
    }),
  });
  env.WEBHOOK_QUEUE_URL = webhookQueueUrl;

  const keyId = await ensureKey(clients.kms, `alias/${options.prefix}-site-passwords`);
  env.SITE_PASSWORD_KEY_ID = keyId;

  return { env, tableNames, queueUrl, deadLetterQueueUrl, webhookQueueUrl, keyId };
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
    if (existed && name === 'websites') {
      await backfillCheckIndex(DynamoDBDocumentClient.from(dynamodb), tableName);
    }
    // Queue entries stored before queue numbers get theirs (and are counted).
    if (existed && name === 'articles') {
      await backfillQueuePositions(DynamoDBDocumentClient.from(dynamodb), tableName);
    }
    tableNames[name] = tableName;
    env[definition.envVar] = tableName;
  }
  return { tableNames, env };
}

/** Creates the table or adds its missing indexes; true when it existed already. */
async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  definition: TableDefinition,
): Promise<boolean> {
  let existing: TableDescription | undefined;
  try {
    existing = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const attributes = new Map<string, AttributeDefinition>();
  const addAttribute = (key: { name: string; type: 'S' | 'N' }) =>
    attributes.set(key.name, { AttributeName: key.name, AttributeType: key.type });
  addAttribute(definition.partitionKey);
  if (definition.sortKey) addAttribute(definition.sortKey);
  for (const index of definition.globalIndexes ?? []) {
    addAttribute(index.partitionKey);
    if (index.sortKey) addAttribute(index.sortKey);
  }
  const keySchema = (partition: { name: string }, sort?: { name: string }) => [
    { AttributeName: partition.name, KeyType: 'HASH' as const },
    ...(sort ? [{ AttributeName: sort.name, KeyType: 'RANGE' as const }] : []),
  ];
  if (existing) {
    await addMissingIndexes(client, existing, definition, attributes, keySchema);
    return true;
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes.values()],
      KeySchema: keySchema(definition.partitionKey, definition.sortKey),
      GlobalSecondaryIndexes: definition.globalIndexes?.map((index) => ({
        IndexName: index.indexName,
        KeySchema: keySchema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
  if (definition.timeToLiveAttribute) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
      }),
    );
  }
  return false;
}

/**
 * Local data outlives code changes: an index added to a table definition after the local table
 * was created is added to it (one UpdateTable per index, as DynamoDB requires).
 */
async function addMissingIndexes(
  client: DynamoDBClient,
  existing: TableDescription,
  definition: TableDefinition,
  attributes: Map<string, AttributeDefinition>,
  keySchema: (partition: { name: string }, sort?: { name: string }) => KeySchemaElement[],
): Promise<void> {
  const present = new Set((existing.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of definition.globalIndexes ?? []) {
    if (present.has(index.indexName)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: existing.TableName,
        AttributeDefinitions: [...attributes.values()],
        GlobalSecondaryIndexUpdates: [
          {
            Create: {
              IndexName: index.indexName,
              KeySchema: keySchema(index.partitionKey, index.sortKey),
              Projection: { ProjectionType: 'ALL' },
            },
          },
        ],
      }),
    );
  }
}

async function ensureQueue(
  client: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<string> {
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (!QueueUrl) throw new Error(`CreateQueue returned no URL for ${name}`);
  return QueueUrl;
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
  const keyId = KeyMetadata?.KeyId;
  if (!keyId) throw new Error('CreateKey returned no key id');
  await client.send(new CreateAliasCommand({ AliasName: alias, TargetKeyId: keyId }));
  return keyId;
}
