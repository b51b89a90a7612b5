/**
 * AWS SDK clients, created once per process. Endpoints come from the standard
 * `AWS_ENDPOINT_URL_<SERVICE>` variables, which the local runtime and tests point at
 * DynamoDB Local and moto_server.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

let dynamoDb: DynamoDBClient | undefined;
let documentClient: DynamoDBDocumentClient | undefined;
let sqs: SQSClient | undefined;
let kms: KMSClient | undefined;
let secretsManager: SecretsManagerClient | undefined;

/** The plain DynamoDB client, for libraries that marshal items themselves (Powertools idempotency). */
export function dynamoDbClient(): DynamoDBClient {
  dynamoDb ??= new DynamoDBClient({});
  return dynamoDb;
}

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(dynamoDbClient(), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient({});
  return sqs;
}

export function kmsClient(): KMSClient {
  kms ??= new KMSClient({});
  return kms;
}

export function secretsManagerClient(): SecretsManagerClient {
  secretsManager ??= new SecretsManagerClient({});
  return secretsManager;
}
