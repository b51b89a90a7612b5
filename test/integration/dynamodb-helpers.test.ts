/**
 * The shared DynamoDB helpers against DynamoDB Local: batch reads and writes past one call's
 * maximum (100 keys, 25 requests), queries read to the end or to a limit, and the one test of a
 * failed condition on the errors DynamoDB really throws.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoCategoryRepository } from '../../functions/adapters/dynamodb/category-repository';
import { DynamoLoginFailureRepository } from '../../functions/adapters/dynamodb/login-failure-repository';
import { countQuery, queryAll, queryFirst } from '../../functions/adapters/dynamodb/reads';
import { conditionFailed } from '../../functions/adapters/dynamodb/transactions';
import type { Category } from '../../functions/core/websites/website';
import type { ProvisionedResources } from '../../local/provision';
import { withReadLog } from '../support/read-log';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;
let client: DynamoDBDocumentClient;
let categories: DynamoCategoryRepository;

beforeAll(async () => {
  resources = await provisionTestResources();
  client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  categories = new DynamoCategoryRepository(client, resources.tableNames.categories);
});

afterAll(() => client.destroy());

const websiteUuid = '30000000-0000-4000-8000-000000000001';
const many: Category[] = Array.from({ length: 130 }, (_, n) => ({
  websiteUuid,
  categoryUuid: `40000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  cmsId: String(n + 1),
  name: `Category ${n}`,
  slug: `category-${n}`,
}));
const byCategoryKey = {
  KeyConditionExpression: 'websiteUuid = :w',
  ExpressionAttributeValues: { ':w': websiteUuid },
};

describe('batch writes and reads', () => {
  it('writes 130 categories in batches of 25 and reads them back in batches of 100', async () => {
    const written = await withReadLog(client, () => categories.putAll(many));
    expect(written.log.commands).toEqual(Array(6).fill('BatchWriteItemCommand'));

    const read = await withReadLog(client, () =>
      categories.getMany(many.map(({ categoryUuid }) => ({ websiteUuid, categoryUuid }))),
    );
    expect(read.log.commands).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
    expect(read.result.map((category) => category.categoryUuid).sort()).toEqual(
      many.map((category) => category.categoryUuid),
    );
    expect(await categories.listAll(websiteUuid)).toHaveLength(130);
  });

  it('deletes them in batches of 25', async () => {
    const uuids = many.map((category) => category.categoryUuid);
    const deleted = await withReadLog(client, () => categories.deleteMany(websiteUuid, uuids));
    expect(deleted.log.commands).toEqual(Array(6).fill('BatchWriteItemCommand'));
    expect(await categories.listAll(websiteUuid)).toEqual([]);
  });
});

describe('queries', () => {
  beforeAll(() => categories.putAll(many.slice(0, 30)));

  const query = () => ({ TableName: resources.tableNames.categories, ...byCategoryKey });

  it('reads every item, counts them, or reads the first few', async () => {
    expect(await queryAll(client, query())).toHaveLength(30);
    expect(await countQuery(client, query())).toBe(30);
    const first = await withReadLog(client, () => queryFirst(client, query(), 7));
    expect(first.result.map((item) => item.categoryUuid)).toEqual(
      many.slice(0, 7).map((category) => category.categoryUuid),
    );
    expect(first.log).toEqual({ commands: ['QueryCommand'], itemsRead: 7 });
  });

  it('starts after the ExclusiveStartKey it is given', async () => {
    const second = { websiteUuid, categoryUuid: many[1]?.categoryUuid };
    const rest = await queryFirst(client, { ...query(), ExclusiveStartKey: second }, 100);
    expect(rest.map((item) => item.categoryUuid)).toEqual(
      many.slice(2, 30).map((category) => category.categoryUuid),
    );
    expect(await countQuery(client, { ...query(), ExclusiveStartKey: second })).toBe(28);
  });
});

describe('conditionFailed', () => {
  const table = () => resources.tableNames.categories;
  const item = (n: number) => ({ websiteUuid, categoryUuid: `condition-${n}` });

  async function thrown(run: () => Promise<unknown>): Promise<unknown> {
    try {
      await run();
    } catch (error) {
      return error;
    }
    throw new Error('expected the write to fail');
  }

  it('recognises the failed condition of a single write, and nothing else', async () => {
    await client.send(new PutCommand({ TableName: table(), Item: item(1) }));
    const error = await thrown(() =>
      client.send(
        new PutCommand({
          TableName: table(),
          Item: item(1),
          ConditionExpression: 'attribute_not_exists(categoryUuid)',
        }),
      ),
    );
    expect(conditionFailed(error)).toBe(true);
    expect(conditionFailed(new Error('ConditionalCheckFailed'))).toBe(false);
    const invalid = await thrown(() =>
      client.send(new PutCommand({ TableName: table(), Item: { websiteUuid } })),
    );
    expect(conditionFailed(invalid)).toBe(false);
  });

  it('tells which item of a cancelled transaction failed its condition', async () => {
    await client.send(new PutCommand({ TableName: table(), Item: item(2) }));
    const error = await thrown(() =>
      client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table(),
                Item: item(3),
                ConditionExpression: 'attribute_not_exists(categoryUuid)',
              },
            },
            {
              Put: {
                TableName: table(),
                Item: item(2),
                ConditionExpression: 'attribute_not_exists(categoryUuid)',
              },
            },
          ],
        }),
      ),
    );
    expect(conditionFailed(error, 1)).toBe(true);
    expect(conditionFailed(error, 0)).toBe(false);
    expect(conditionFailed(error)).toBe(false);
    expect(conditionFailed(['None', 'ConditionalCheckFailed'], 1)).toBe(true);
    expect(conditionFailed(['None', 'ConditionalCheckFailed'], 0)).toBe(false);
  });
});

describe('login failures (RateLimits table)', () => {
  const WINDOW_MS = 15 * 60_000;
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 23, 12, minutes));

  it('counts failures in one window, beside the token buckets, and starts a new one after it', async () => {
    const failures = new DynamoLoginFailureRepository(client, resources.tableNames.rateLimits);
    const key = `k-${Date.now()}`;
    expect(await failures.current(key, at(0))).toBeUndefined();

    await failures.record(key, at(0), WINDOW_MS);
    await failures.record(key, at(5), WINDOW_MS);
    expect(await failures.current(key, at(10))).toEqual({ failures: 2, windowEndsAt: at(15) });

    // Closed at its end: nothing counts any more, and the next failure opens a window of its own.
    expect(await failures.current(key, at(15))).toBeUndefined();
    await failures.record(key, at(20), WINDOW_MS);
    expect(await failures.current(key, at(21))).toEqual({ failures: 1, windowEndsAt: at(35) });
  });
});
