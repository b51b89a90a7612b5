/** The site index's DynamoDB store. */
import { DynamoSiteIndexRepository } from '../adapters/dynamodb/site-index-repository';
import type { SiteIndexStore } from '../core/websites/ports';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';

export function siteIndexStore(config: Config): SiteIndexStore {
  return new DynamoSiteIndexRepository(dynamoDocumentClient(), config.tables.siteIndex);
}
