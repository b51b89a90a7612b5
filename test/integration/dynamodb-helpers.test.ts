/**
 * The shared DynamoDB helpers against DynamoDB Local: batch reads and writes past one call's
 * maximum (100 keys, 25 requests), queries read to the end or to a limit, the one test of a
 * failed condition on the errors DynamoDB really throws, and the in-memory update that gives
 * webhook events their body (what DynamoDB leaves, exactly).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { DynamoCategoryRepository } from '../../functions/adapters/dynamodb/category-repository';
import { DynamoLoginFailureRepository } from '../../functions/adapters/dynamodb/login-failure-repository';
import { countQuery, queryAll, queryFirst } from '../../functions/adapters/dynamodb/reads';
import { conditionFailed } from '../../functions/adapters/dynamodb/transactions';
import { applyUpdate } from '../../functions/adapters/dynamodb/update-in-memory';
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

describe('login attempts (RateLimits table)', () => {
  const WINDOW_MS = 15 * 60_000;
  // From now: DynamoDB Local deletes items whose TTL (expiresAt) has passed.
  const start = Date.now();
  const at = (minutes: number) => new Date(start + minutes * 60_000);

  it('grants exactly `limit` of 20 parallel reservations, all counters or none', async () => {
    const attempts = new DynamoLoginFailureRepository(client, resources.tableNames.rateLimits);
    const tag = Date.now();
    const account = { key: `account-${tag}`, limit: 2 };
    const site = { key: `site-${tag}`, limit: 3 };

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, n) => attempts.reserve([account, site], `a${n}`, at(0), WINDOW_MS)),
    );

    expect(results.filter((result) => result.granted)).toHaveLength(2);
    expect(results.filter((result) => !result.granted)[0]).toEqual({
      granted: false,
      counter: account,
      attempts: 2,
      freeAt: at(15),
    });
    // The site counter holds the two granted attempts only: a refused one counted nowhere.
    const other = { key: `account-other-${tag}`, limit: 2 };
    expect(await attempts.reserve([other, site], 'b0', at(1), WINDOW_MS)).toEqual({ granted: true });
    expect(
      await attempts.reserve([{ ...other, key: `${other.key}-2` }, site], 'b1', at(1), WINDOW_MS),
    ).toEqual({
      granted: false,
      counter: site,
      attempts: 3,
      freeAt: at(15),
    });
  });

  it('takes a released attempt back, and forgets attempts older than the window (sliding)', async () => {
    const attempts = new DynamoLoginFailureRepository(client, resources.tableNames.rateLimits);
    const counter = { key: `sliding-${Date.now()}`, limit: 2 };
    expect(await attempts.reserve([counter], 'x', at(0), WINDOW_MS)).toEqual({ granted: true });
    expect(await attempts.reserve([counter], 'y', at(10), WINDOW_MS)).toEqual({ granted: true });
    await attempts.release([counter.key], 'y');
    expect(await attempts.reserve([counter], 'z', at(11), WINDOW_MS)).toEqual({ granted: true });
    // x (0), z (11): full until x is 15 minutes old; then z still counts.
    expect(await attempts.reserve([counter], 'w', at(14), WINDOW_MS)).toMatchObject({
      granted: false,
      freeAt: at(15),
    });
    expect(await attempts.reserve([counter], 'w', at(15), WINDOW_MS)).toEqual({ granted: true });
    expect(await attempts.reserve([counter], 'v', at(16), WINDOW_MS)).toMatchObject({
      granted: false,
      freeAt: at(26),
    });
    // Releasing an attempt that is gone changes nothing.
    await attempts.release([counter.key, `never-${counter.key}`], 'gone');
  });
});

describe('an update applied in memory (webhook event bodies)', () => {
  it.each([
    [
      'SET, aliases, arithmetic and REMOVE, as a completion writes them',
      {
        UpdateExpression:
          'SET #state = :generated, title = :title, creditsCharged = creditsCharged - :refund, generatedSeq = :seq REMOVE leaseOwner, notThere',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':generated': 'generated',
          ':title': 'Written',
          ':refund': 2,
          ':seq': 7,
        },
      },
    ],
    [
      'if_not_exists, list_append and ADD (numbers, new and existing)',
      {
        UpdateExpression:
          'SET attempts = if_not_exists(attempts, :zero) + :one, firstSeen = if_not_exists(createdAt, :now), tags = list_append(tags, :more) ADD tally :one, fresh :one',
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':now': 'now', ':more': ['c'] },
      },
    ],
    [
      'values read from the item as it was, whatever the order of the actions',
      {
        UpdateExpression: 'SET creditsCharged = :zero, previousCredits = creditsCharged REMOVE title',
        ExpressionAttributeValues: { ':zero': 0 },
      },
    ],
  ])('leaves the item DynamoDB leaves: %s', async (_, update) => {
    const key = { websiteUuid: 'in-memory', categoryUuid: crypto.randomUUID() };
    const item = {
      ...key,
      state: 'queued',
      title: 'Draft',
      creditsCharged: 5,
      leaseOwner: 'worker',
      tally: 3,
      createdAt: '2026-11-28T00:00:00.000Z',
      tags: ['a', 'b'],
      nested: { kept: true },
    };
    const TableName = resources.tableNames.categories;
    await client.send(new PutCommand({ TableName, Item: item }));
    await client.send(new UpdateCommand({ TableName, Key: key, ...update }));
    const { Item } = await client.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }));
    expect(applyUpdate(item, update)).toEqual(Item);
  });

  it.each([
    ['a nested path', 'SET nested.kept = :v'],
    ['DELETE', 'DELETE tags :v'],
    ['an unknown function', 'SET a = size(tags)'],
    ['a missing value', 'SET a = :missing'],
  ])('refuses %s rather than guess', (_, expression) => {
    expect(() =>
      applyUpdate({}, { UpdateExpression: expression, ExpressionAttributeValues: { ':v': 1 } }),
    ).toThrow(/Cannot apply the update in memory/);
  });
});
