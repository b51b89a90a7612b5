/** Websites and their categories: the DynamoDB repositories. */
import { DynamoCategoryRepository } from '../adapters/dynamodb/category-repository';
import { DynamoSiteProfileRepository } from '../adapters/dynamodb/site-profile-repository';
import { DynamoWebsiteRepository } from '../adapters/dynamodb/website-repository';
import type { CategoryLookup, WebsiteLookup } from '../core/articles/ports';
import type { CategoryStore, SiteProfileStore, WebsiteStore } from '../core/websites/ports';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';

/** The repository class satisfies both the websites' store and the articles' lookup. */
export function websiteStore(config: Config): WebsiteStore & WebsiteLookup {
  return new DynamoWebsiteRepository(dynamoDocumentClient(), config.tables.websites);
}

export function categoryStore(config: Config): CategoryStore & CategoryLookup {
  return new DynamoCategoryRepository(dynamoDocumentClient(), config.tables.categories);
}

export function siteProfileStore(config: Config): SiteProfileStore {
  return new DynamoSiteProfileRepository(dynamoDocumentClient(), config.tables.websites);
}
