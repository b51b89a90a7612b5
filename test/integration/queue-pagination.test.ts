/**
 * Page N of the queue costs what page 1 costs (two small reads and one Query of at most 51
 * entries), with holes left by cancelled and generated articles anywhere, across the counters'
 * ranges; entries stored before queue numbers are numbered by the local provisioning.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { MiddlewareStack } from '@smithy/types';
import { backfillQueuePositions } from '../../functions/adapters/dynamodb/queue-positions';
import { handler as listQueueHandler } from '../../functions/api/list-queued-articles';
import { createAccount } from '../../functions/core/accounts';
import { createArticle } from '../../functions/core/articles/create-article';
import { createArticleSchema } from '../../functions/core/articles/create-article-input';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { withReadLog } from '../support/read-log';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;

beforeAll(async () => {
  resources = await provisionTestResources();
});

async function newAccount(credits = 0) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Queue', credits, dailyLimit: 1000 },
  );
  return account.accountId;
}

async function queuePage(accountId: string, page: number) {
  const response = await listQueueHandler(
    apiEvent('list-queued-articles', { accountId, query: { page: String(page) } }),
  );
  expect(response.statusCode).toBe(200);
  return JSON.parse(response.body) as {
    data: { data: { uuid: string; title: string } }[];
    meta: Record<string, unknown>;
    links: Record<string, unknown>;
  };
}

/** Creates `count` articles titled `Q <n>` (deferred: the account has no credits), oldest first. */
async function createMany(accountId: string, count: number, from = 0) {
  const uuids: string[] = [];
  for (let n = from; n < from + count; n++) {
    const input = createArticleSchema().parse({
      keyword: 'bread',
      h2_count: 1,
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
      title: `Q ${n}`,
    });
    uuids.push((await createArticle(deps.createArticleDeps(), accountId, input)).articleUuid);
  }
  return uuids;
}

describe('queue listing at any depth', () => {
  it('reads page 1 and page 3 alike, skipping holes, across a range boundary', async () => {
    const accountId = await newAccount();
    // Start the numbers just below a range boundary (1,024), as an account with history would.
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: resources.tableNames.articles,
        Key: { accountId, articleUuid: 'queue#directory' },
        UpdateExpression: 'SET nextSeq = :seq',
        ExpressionAttributeValues: { ':seq': 1000 },
      }),
    );
    const uuids = await createMany(accountId, 70);
    // Holes: cancel every seventh article.
    const cancelled = new Set<string>();
    for (const [n, uuid] of uuids.entries()) {
      if (n % 7 !== 3) continue;
      const article = await deps.articleStore().get(accountId, uuid);
      if (article && (await deps.articleStore().cancel(article, new Date().toISOString())))
        cancelled.add(uuid);
    }
    const expected = uuids.filter((uuid) => !cancelled.has(uuid)).reverse();
    expect(expected).toHaveLength(60);

    const pages = [];
    for (const n of [1, 2, 3, 4])
      pages.push(await withReadLog(dynamoDocumentClient(), () => queuePage(accountId, n)));
    const [first, second, third, beyond] = pages.map((page) => page.result);

    expect(
      [...(first?.data ?? []), ...(second?.data ?? []), ...(third?.data ?? [])].map((item) => item.data.uuid),
    ).toEqual(expected);
    expect(first?.meta).toMatchObject({ total: 60, last_page: 3, from: 1, to: 20 });
    expect(third?.meta).toMatchObject({ total: 60, last_page: 3, from: 41, to: 60 });
    expect(third?.links.next).toBeNull();
    expect(beyond?.data).toEqual([]);
    expect(beyond?.meta).toMatchObject({ total: 60, from: null });

    const [firstLog, , thirdLog] = pages.map((page) => page.log);
    // The rate-limit token, the two counter items, one Query.
    expect(firstLog?.commands).toEqual([
      'UpdateItemCommand',
      'GetItemCommand',
      'GetItemCommand',
      'QueryCommand',
    ]);
    expect(thirdLog?.commands).toEqual(firstLog?.commands);
    expect(thirdLog?.itemsRead).toBeLessThanOrEqual(2 + 31 + 20);
  });

  it('answers a page when an article leaves the queue between its two counter reads', async () => {
    const accountId = await newAccount();
    const [uuid] = await createMany(accountId, 1);
    const client = dynamoDocumentClient();
    const stack = client.middlewareStack as MiddlewareStack<object, object>;
    let left = false;
    // Right after the listing read the directory (one entry), the article is cancelled: the
    // range's counts it reads next no longer hold that entry.
    stack.add(
      (next, context) => async (args) => {
        const output = await next(args);
        const key = (args.input as { Key?: { articleUuid?: string } }).Key;
        if (!left && context.commandName === 'GetItemCommand' && key?.articleUuid === 'queue#directory') {
          left = true;
          const article = await deps.articleStore().get(accountId, uuid as string);
          if (!article || !(await deps.articleStore().cancel(article, new Date().toISOString())))
            throw new Error('the article was not cancelled');
        }
        return output;
      },
      { step: 'initialize', name: 'leaveQueueBetweenReads' },
    );
    try {
      const page = await queuePage(accountId, 1);
      expect(left).toBe(true);
      expect(page.data).toEqual([]);
      expect(page.meta).toMatchObject({ total: 0 });
    } finally {
      stack.remove('leaveQueueBetweenReads');
    }
  });

  it('numbers entries stored before queue numbers, oldest first, once', async () => {
    const accountId = await newAccount();
    const table = resources.tableNames.articles;
    for (const n of [1, 2, 3]) {
      await dynamoDocumentClient().send(
        new PutCommand({
          TableName: table,
          Item: {
            accountId,
            articleUuid: `00000000-0000-4000-8000-00000000000${n}`,
            state: 'not_enough_credits',
            keyword: 'bread',
            h2Count: 1,
            aiModel: 'gpt-3.5-turbo',
            language: 'en',
            needBold: false,
            draft: false,
            title: `Old ${n}`,
            createdAt: `2026-01-0${n}T00:00:00.000Z`,
            estimatedCredits: 2,
            creditsCharged: 0,
            queueSortKey: `2026-01-0${n}T00:00:00.000Z#00000000-0000-4000-8000-00000000000${n}`,
          },
        }),
      );
    }
    expect(await backfillQueuePositions(dynamoDocumentClient(), table)).toBe(3);
    expect(await backfillQueuePositions(dynamoDocumentClient(), table)).toBe(0);
    await createMany(accountId, 1, 100);

    const page = await queuePage(accountId, 1);
    expect(page.data.map((item) => item.data.title)).toEqual(['Q 100', 'Old 3', 'Old 2', 'Old 1']);
    expect(page.meta).toMatchObject({ total: 4 });
  });
});
