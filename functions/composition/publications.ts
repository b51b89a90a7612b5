import { DynamoPublicationRepository } from '../adapters/dynamodb/publication-repository';
import type { PublicationStore } from '../core/publishing/ports';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';

/** Publication state on the article items. */
export function publicationStore(config: Config): PublicationStore {
  return new DynamoPublicationRepository(dynamoDocumentClient(), config.tables.articles);
}
