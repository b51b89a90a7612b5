/**
 * Creates of one account that arrive together in one process are reserved in groups
 * (adapters/dynamodb/reservation-groups.ts), on DynamoDB Local: a group is charged whole or each
 * of its members reserves alone and gets exactly what it would have got; the daily limit and the
 * credits are never passed; queue numbers and their counters stay exact.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createAccount } from '../../functions/core/accounts';
import { createArticle } from '../../functions/core/articles/create-article';
import type { CreateArticleInput } from '../../functions/core/articles/create-article-input';
import { priceOf } from '../../functions/core/pricing';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { receive } from '../support/generation-queue';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;

beforeAll(async () => {
  resources = await provisionTestResources();
});

beforeEach(async () => {
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

const input: CreateArticleInput = {
  keyword: 'grouped topic',
  h2_count: 1,
  ai_model: 'gpt-3.5-turbo',
  language: 'en',
  need_bold: false,
  draft: false,
};
const PRICE = priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 1, needBold: false });

async function newAccount(credits: number, dailyLimit = 1000) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Reservation groups', credits, dailyLimit },
  );
  return account.accountId;
}

const credits = async (accountId: string) => (await deps.accountStore().get(accountId))?.credits;

/** Counts the reservation transactions sent through the shared client while `run` runs. */
async function countingTransactions<T>(run: () => Promise<T>): Promise<{ result: T; transactions: number }> {
  const client = dynamoDocumentClient();
  let transactions = 0;
  const send = client.send.bind(client);
  const spy = jest.spyOn(client, 'send').mockImplementation(((command: unknown, ...rest: never[]) => {
    if (command instanceof TransactWriteCommand) transactions++;
    return send(command as never, ...rest);
  }) as typeof client.send);
  try {
    return { result: await run(), transactions };
  } finally {
    spy.mockRestore();
  }
}

describe('reservations made together', () => {
  it('reserves 60 creates at once in far fewer transactions, each charged once, numbered and counted', async () => {
    const accountId = await newAccount(100 * PRICE);
    // One store for all of them, as a handler composes it once per process.
    const createDeps = deps.createArticleDeps();

    const { result: articles, transactions } = await countingTransactions(() =>
      Promise.all(Array.from({ length: 60 }, () => createArticle(createDeps, accountId, input))),
    );

    expect(articles.every((article) => article.state === 'queued')).toBe(true);
    expect(transactions).toBeLessThan(20);
    expect(await credits(accountId)).toBe(40 * PRICE);
    const stored = await Promise.all(
      articles.map((article) => deps.articleStore().get(accountId, article.articleUuid)),
    );
    const numbers = stored.map((article) => article?.queueSeq);
    expect(new Set(numbers).size).toBe(60);
    expect((await deps.articleStore().listQueued(accountId, 1, 20)).total).toBe(60);
    // Every message sent (10 to a SendMessageBatch when they go out together).
    const bodies = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const messages = await receive(resources.queueUrl, 10, 0, 60);
      if (messages.length === 0) break;
      for (const message of messages) bodies.add(String(message.Body));
    }
    expect([...bodies].sort()).toEqual(
      articles.map((article) => JSON.stringify({ accountId, articleUuid: article.articleUuid })).sort(),
    );
  });

  it('never passes the daily limit: exactly the slots left are reserved and charged, the rest wait for tomorrow', async () => {
    const accountId = await newAccount(100 * PRICE, 17);
    const createDeps = deps.createArticleDeps();

    const articles = await Promise.all(
      Array.from({ length: 45 }, () => createArticle(createDeps, accountId, input)),
    );

    expect(articles.filter((article) => article.state === 'queued')).toHaveLength(17);
    expect(articles.filter((article) => article.state === 'daily_limit_reached')).toHaveLength(28);
    expect(await credits(accountId)).toBe((100 - 17) * PRICE);
    expect((await deps.articleStore().listQueued(accountId, 1, 20)).total).toBe(45);
  });

  it('lets a member whose article an earlier try stored find it, and reserves the others: charged once each', async () => {
    const accountId = await newAccount(10 * PRICE);
    const createDeps = deps.createArticleDeps();
    const keyed = { articleUuid: crypto.randomUUID(), requestHash: 'same request' };
    const first = await createArticle(createDeps, accountId, input, keyed);
    expect(first.state).toBe('queued');

    // The retry's put fails in the group's transaction: nobody is charged by it, each goes alone.
    const [retried, ...others] = await Promise.all([
      createArticle(createDeps, accountId, input),
      createArticle(createDeps, accountId, input, keyed),
      createArticle(createDeps, accountId, input),
      createArticle(createDeps, accountId, input),
    ]).then(([lone, retry, ...rest]) => [retry, lone, ...rest]);

    expect(retried?.articleUuid).toBe(keyed.articleUuid);
    expect(retried?.state).toBe('queued');
    expect(others.every((article) => article?.state === 'queued')).toBe(true);
    expect(await credits(accountId)).toBe(10 * PRICE - 4 * PRICE);
    expect((await deps.articleStore().listQueued(accountId, 1, 20)).total).toBe(4);
  });
});
