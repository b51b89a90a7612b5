/** Categories in DynamoDB: partition `websiteUuid`, sort key `categoryUuid` (uuid v5 of the site term id). */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { CategoryStore } from '../../core/websites/ports';
import type { Category } from '../../core/websites/website';
import { batchGet, batchWrite } from './batches';
import { queryAll } from './reads';

type Item = Record<string, unknown>;

const WRITE_FAILURE = 'Categories could not be written (throttled)';

export class DynamoCategoryRepository implements CategoryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(websiteUuid: string, categoryUuid: string): Promise<Category | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { websiteUuid, categoryUuid } }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  async getMany(keys: { websiteUuid: string; categoryUuid: string }[]): Promise<Category[]> {
    const unique = new Map(keys.map((key) => [`${key.websiteUuid}/${key.categoryUuid}`, key]));
    return (await batchGet(this.client, this.tableName, [...unique.values()])).map(fromItem);
  }

  async listAll(websiteUuid: string): Promise<Category[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'websiteUuid = :websiteUuid',
      ExpressionAttributeValues: { ':websiteUuid': websiteUuid },
      ConsistentRead: true,
    });
    return items.map(fromItem);
  }

  async putAll(categories: Category[]): Promise<void> {
    await batchWrite(
      this.client,
      this.tableName,
      categories.map((category) => ({ PutRequest: { Item: { ...category } } })),
      WRITE_FAILURE,
    );
  }

  async deleteMany(websiteUuid: string, categoryUuids: string[]): Promise<void> {
    await batchWrite(
      this.client,
      this.tableName,
      categoryUuids.map((categoryUuid) => ({ DeleteRequest: { Key: { websiteUuid, categoryUuid } } })),
      WRITE_FAILURE,
    );
  }
}

function fromItem(item: Item): Category {
  const category: Category = {
    websiteUuid: String(item.websiteUuid),
    categoryUuid: String(item.categoryUuid),
    cmsId: String(item.cmsId),
    name: String(item.name),
    slug: String(item.slug),
  };
  if (typeof item.parentCmsId === 'string') category.parentCmsId = item.parentCmsId;
  return category;
}
