/**
 * Page N of the article list costs one Query of at most 20 items plus one small read, whatever
 * N and however many articles the account has; the envelope's links and meta are exact.
 */
import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { MiddlewareStack } from '@smithy/types';
import * as deps from '../../functions/adapters/dependencies';
import { handler as listArticlesHandler } from '../../functions/api/list-articles';
import { createAccount } from '../../functions/core/accounts';
import { dynamoDocumentClient } from '../../functions/shared/aws-clients';
import type { ProvisionedResources } from '../../local/provision';
import { apiEvent } from '../support/events';
import { provisionTestResources } from '../support/test-resources';

const TOTAL = 1050;
let resources: ProvisionedResources;
let accountId: string;

function uuidFor(seq: number): string {
  return `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`;
}

beforeAll(async () => {
  resources = await provisionTestResources();
  ({
    account: { accountId },
  } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Big', credits: 0 },
  ));
  // Fixture: 1,050 generated articles as the worker stores them (dense generatedSeq 1..n).
  const client = dynamoDocumentClient();
  for (let start = 1; start <= TOTAL; start += 25) {
    const items = [];
    for (let seq = start; seq < Math.min(start + 25, TOTAL + 1); seq++) {
      items.push({
        PutRequest: {
          Item: {
            accountId,
            articleUuid: uuidFor(seq),
            state: 'generated',
            keyword: `keyword ${seq}`,
            h2Count: 1,
            aiModel: 'gpt-3.5-turbo',
            language: 'en',
            needBold: false,
            draft: false,
            createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
            estimatedCredits: 2,
            creditsCharged: 2,
            generatedTitle: `Article ${seq}`,
            content: '<h2>One</h2><p>Text</p>',
            totalWords: 2,
            generatedSeq: seq,
          },
        },
      });
    }
    await client.send(new BatchWriteCommand({ RequestItems: { [resources.tableNames.articles]: items } }));
  }
  await client.send(
    new UpdateCommand({
      TableName: resources.tableNames.accounts,
      Key: { accountId },
      UpdateExpression: 'SET generatedCount = :total',
      ExpressionAttributeValues: { ':total': TOTAL },
    }),
  );
}, 120_000);

interface ReadLog {
  commands: string[];
  itemsRead: number;
}

/** Records every DynamoDB call of one request and the items it read. */
async function withReadLog<T>(run: () => Promise<T>): Promise<{ result: T; log: ReadLog }> {
  const log: ReadLog = { commands: [], itemsRead: 0 };
  const stack = dynamoDocumentClient().middlewareStack as MiddlewareStack<object, object>;
  stack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      const body = output.output as { Count?: number; ScannedCount?: number; Item?: unknown };
      log.commands.push(String(context.commandName));
      log.itemsRead += body.ScannedCount ?? (body.Item ? 1 : 0);
      return output;
    },
    { step: 'initialize', name: 'readLog' },
  );
  try {
    return { result: await run(), log };
  } finally {
    stack.remove('readLog');
  }
}

async function page(n: number) {
  const response = await listArticlesHandler(
    apiEvent('list-articles', { accountId, query: { page: String(n) } }),
  );
  expect(response.statusCode).toBe(200);
  return JSON.parse(response.body);
}

describe('article list pagination over 1,050 generated articles', () => {
  it('reads the same for page 1 and page 50: one small read and one Query of 20 items', async () => {
    const first = await withReadLog(() => page(1));
    const fiftieth = await withReadLog(() => page(50));
    expect(first.log.commands).toEqual(['GetItemCommand', 'QueryCommand']);
    expect(fiftieth.log).toEqual(first.log);
    expect(first.log.itemsRead).toBe(21);
  });

  it('returns newest first, with exact links and meta', async () => {
    const base = 'https://api.example.com/prod/v1/articles/list';
    const first = await page(1);
    expect(first.data.map((item: { data: { title: string } }) => item.data.title).slice(0, 2)).toEqual([
      'Article 1050',
      'Article 1049',
    ]);
    expect(first.links).toEqual({
      first: `${base}?page=1`,
      last: `${base}?page=53`,
      prev: null,
      next: `${base}?page=2`,
    });
    expect(first.meta).toEqual({
      current_page: 1,
      from: 1,
      path: base,
      per_page: 20,
      to: 20,
      last_page: 53,
      total: 1050,
    });

    const fiftieth = await page(50);
    expect(fiftieth.data).toHaveLength(20);
    expect(fiftieth.data[0].data.uuid).toBe(uuidFor(1050 - 49 * 20));
    expect(fiftieth.meta).toMatchObject({ current_page: 50, from: 981, to: 1000 });
    expect(fiftieth.links).toMatchObject({ prev: `${base}?page=49`, next: `${base}?page=51` });

    const last = await page(53);
    expect(last.data).toHaveLength(10);
    expect(last.data[9].data.uuid).toBe(uuidFor(1));
    expect(last.links.next).toBeNull();
    expect(last.meta).toMatchObject({ from: 1041, to: 1050 });

    const beyond = await page(54);
    expect(beyond.data).toEqual([]);
    expect(beyond.meta).toMatchObject({ current_page: 54, from: null, to: null });
  });
});
