/** Batches: the batch store (creates, reads), and the sweeper's, which records `batch.completed`. */
import { DynamoBatchRepository } from '../adapters/dynamodb/batch-repository';
import type { EventOutbox } from '../adapters/dynamodb/event-outbox';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';

/** Reads only the tables the function declares (an undeclared one throws when used). */
export function batchStore(config: Config, events?: EventOutbox): DynamoBatchRepository {
  return new DynamoBatchRepository(dynamoDocumentClient(), config.tables, events);
}
