/** Categories in DynamoDB: partition `websiteUuid`, sort key `categoryUuid` (uuid v5 of the site term id). */
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import type { CategoryStore } from '../../core/websites/ports';
import type { Category } from '../../core/websites/website';
import { batchGet } from './reads';
import { backoff } from './transactions';

type Item = Record<string, unknown>;
type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** Items per BatchWriteItem call (the service maximum). */
const BATCH_SIZE = 25;
const MAX_BATCH_ATTEMPTS = 10;

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
    const categories: Category[] = [];
    let exclusiveStartKey: Item | undefined;
    do {
      const { Items, LastEvaluatedKey } = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'websiteUuid = :websiteUuid',
          ExpressionAttributeValues: { ':websiteUuid': websiteUuid },
          ConsistentRead: true,
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      categories.push(...(Items ?? []).map(fromItem));
      exclusiveStartKey = LastEvaluatedKey;
    } while (exclusiveStartKey);
    return categories;
  }

  async putAll(categories: Category[]): Promise<void> {
    await this.write(categories.map((category) => ({ PutRequest: { Item: { ...category } } })));
  }

  async deleteMany(websiteUuid: string, categoryUuids: string[]): Promise<void> {
    await this.write(
      categoryUuids.map((categoryUuid) => ({ DeleteRequest: { Key: { websiteUuid, categoryUuid } } })),
    );
  }

  /** Batches of 25, retrying unprocessed items with backoff. */
  private async write(requests: WriteRequest[]): Promise<void> {
    for (let start = 0; start < requests.length; start += BATCH_SIZE) {
      let pending = requests.slice(start, start + BATCH_SIZE);
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt >= MAX_BATCH_ATTEMPTS) throw new Error('Categories could not be written (throttled)');
        if (attempt > 0) await backoff(attempt);
        const { UnprocessedItems } = await this.client.send(
          new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }),
        );
        pending = UnprocessedItems?.[this.tableName] ?? [];
      }
    }
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
