/**
 * The DynamoDB clients, created once per process on first use. Endpoints come from the standard
 * `AWS_ENDPOINT_URL_DYNAMODB` variable, which the local runtime and tests point at DynamoDB Local.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

let dynamoDb: DynamoDBClient | undefined;
let documentClient: DynamoDBDocumentClient | undefined;

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
