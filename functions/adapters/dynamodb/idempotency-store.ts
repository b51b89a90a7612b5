import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { dynamoDbClient } from '../../shared/aws-clients';
import { tableNameOf } from './table-names';

/**
 * A Powertools persistence layer on the Idempotency table. Powertools configures a layer once
 * (with the first operation's settings), so each idempotent operation needs its own.
 */
export function idempotencyStore(): DynamoDBPersistenceLayer {
  return new DynamoDBPersistenceLayer({
    tableName: tableNameOf('idempotency'),
    awsSdkV3Client: dynamoDbClient(),
  });
}
