import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { dynamoDbClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';

/**
 * A Powertools persistence layer on the Idempotency table. Powertools configures a layer once
 * (with the first operation's settings), so each idempotent operation needs its own.
 */
export function idempotencyStore(config: Config): DynamoDBPersistenceLayer {
  return new DynamoDBPersistenceLayer({
    tableName: config.tables.idempotency,
    awsSdkV3Client: dynamoDbClient(),
  });
}
