/**
 * Outline review through the real handlers and worker against DynamoDB Local, moto SQS, the fake
 * OpenAI server (real `openai` client) and a fake plugin: `outline_review=1` stops in
 * `outline_ready` with its `article.outline_ready` event in the outbox, the approval's headings
 * are exactly the published ones; approve, cancel and expiry racing on the real store refund at
 * most once and never both generate and refund.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as approveOutlineHandler } from '../../functions/api/approve-outline';
import { handler as cancelArticleHandler } from '../../functions/api/cancel-article';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { createAccount } from '../../functions/core/accounts';
import { expireOutlines } from '../../functions/core/articles/outline-review';
import { OUTLINE_REVIEW_DAYS } from '../../functions/core/articles/outline-rules';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, fakeModelEnv, startFakeOpenAi } from '../support/fake-openai-server';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { drainQueue } from '../support/generation-queue';
import { urlencodedBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

const PASSWORD = 'correct horse battery';
const CREDITS = 100;
/** gpt-3.5-turbo, 3 H2s. */
const PRICE = 4;

let resources: ProvisionedResources;
let site: FakeWordPress;
let fakeOpenAi: FakeOpenAi;

beforeAll(async () => {
  site = await startFakeWordPress();
  fakeOpenAi = await startFakeOpenAi();
  resources = await provisionTestResources({
    ...fakeModelEnv(fakeOpenAi),
    INKPRESS_LOCAL_MODE: 'true',
    PUBLIC_BASE_URL: '',
  });
});

afterAll(async () => {
  await site.close();
  await fakeOpenAi.close();
});

beforeEach(async () => {
  site.users.set('inkpress', { password: PASSWORD, roles: ['inkpress_editor'] });
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

const json = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const credits = async (accountId: string) => (await deps.accountStore().get(accountId))?.credits;

async function newAccount() {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Outline test', credits: CREDITS },
  );
  await deps.webhookStore().createEndpoint(
    {
      accountId: account.accountId,
      webhookUuid: crypto.randomUUID(),
      url: 'https://hooks.example.com/outline',
      events: ['article.outline_ready'],
      secretCiphertext: 'not-used-here',
      createdAt: new Date().toISOString(),
    },
    10,
  );
  return account.accountId;
}

async function createReviewed(accountId: string, fields: Record<string, string> = {}) {
  const response = await createArticleHandler(
    apiEvent('create-article', {
      accountId,
      ...urlencodedBody({
        keyword: 'sourdough starter',
        h2_count: '3',
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        outline_review: '1',
        ...fields,
      }),
    }),
  );
  expect(response.statusCode).toBe(202);
  return json(response).article_uuid as string;
}

const show = async (accountId: string, articleUuid: string) =>
  json(
    await showArticleHandler(
      apiEvent('show-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
    ),
  );
const approve = (accountId: string, articleUuid: string, body: unknown) =>
  approveOutlineHandler(
    apiEvent('approve-outline', {
      accountId,
      pathParameters: { article_uuid: articleUuid },
      body: JSON.stringify(body),
      contentType: 'application/json',
    }),
  );
const cancel = (accountId: string, articleUuid: string) =>
  cancelArticleHandler(
    apiEvent('cancel-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
  );

async function storedEventTypes(accountId: string): Promise<string[]> {
  const { Items } = await dynamoDocumentClient().send(
    new QueryCommand({
      TableName: process.env.WEBHOOKS_TABLE,
      KeyConditionExpression: 'accountId = :accountId AND begins_with(itemKey, :prefix)',
      ExpressionAttributeValues: { ':accountId': accountId, ':prefix': 'event#' },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((item) => String(item.type));
}

const approval = {
  title: 'Sourdough starter, week by week',
  headings: ['What a starter needs', 'Feeding it every day', 'Knowing when it is ready'],
};

describe('outline_review=1', () => {
  it('waits in outline_ready, takes the edited headings and publishes with exactly them', async () => {
    const accountId = await newAccount();
    const created = json(
      await createWebsiteHandler(
        apiEvent('create-website', {
          accountId,
          ...urlencodedBody({ url: `${site.url}/outline`, login: 'inkpress', password: PASSWORD }),
        }),
      ),
    );
    const articleUuid = await createReviewed(accountId, { website_uuid: created.data.uuid });
    expect(await credits(accountId)).toBe(CREDITS - PRICE);
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);

    const ready = await show(accountId, articleUuid);
    expect(ready.status).toBe('outline_ready');
    expect(ready.data.outline).toMatchObject({ approved: 0, expires_at: expect.any(String) });
    expect(ready.data.outline.headings).toHaveLength(3);
    expect(await storedEventTypes(accountId)).toEqual(['article.outline_ready']);
    // Nothing written beyond the outline; nothing on the site.
    expect([...site.posts.values()].filter((post) => post.article_uuid === articleUuid)).toEqual([]);

    expect((await approve(accountId, articleUuid, { ...approval, headings: ['only one'] })).statusCode).toBe(
      422,
    );
    const approved = await approve(accountId, articleUuid, approval);
    expect(approved.statusCode).toBe(202);
    expect(json(approved).status).toBe('in_progress');
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);

    const generated = await show(accountId, articleUuid);
    expect(generated.status).toBe('generated');
    expect(generated.data.title).toBe(approval.title);
    const post = [...site.posts.values()].find((candidate) => candidate.article_uuid === articleUuid);
    expect(post?.title).toBe(approval.title);
    expect(post?.sections.map((section) => section.heading)).toEqual(approval.headings);
    expect(await credits(accountId)).toBe(CREDITS - PRICE);
    // The outline's request and the article's: the outline was asked for once.
    const outlineRequests = fakeOpenAi.requests.filter((request) =>
      JSON.stringify(request.response_format ?? '').includes('"outline"'),
    );
    expect(outlineRequests.length).toBeGreaterThanOrEqual(1);
  });

  it('is refunded once when cancelled in outline_ready', async () => {
    const accountId = await newAccount();
    const articleUuid = await createReviewed(accountId);
    await drainQueue(resources.queueUrl, worker);
    expect((await cancel(accountId, articleUuid)).statusCode).toBe(200);
    expect((await cancel(accountId, articleUuid)).statusCode).toBe(409);
    expect((await approve(accountId, articleUuid, approval)).statusCode).toBe(409);
    expect(await credits(accountId)).toBe(CREDITS);
  });

  it('races of approve, cancel and expiry on the real store: one wins, at most one refund, never both', async () => {
    const accountId = await newAccount();
    const articles: string[] = [];
    for (let index = 0; index < 4; index++) articles.push(await createReviewed(accountId));
    await drainQueue(resources.queueUrl, worker);
    for (const articleUuid of articles)
      expect((await show(accountId, articleUuid)).status).toBe('outline_ready');

    const later = () => new Date(Date.now() + OUTLINE_REVIEW_DAYS * 24 * 3600_000 + 60_000);
    const store = deps.articlesWithEvents();
    await Promise.all(
      articles.flatMap((articleUuid) => [
        approve(accountId, articleUuid, approval),
        cancel(accountId, articleUuid),
        expireOutlines({ articles: store, clock: later }),
        cancel(accountId, articleUuid),
        approve(accountId, articleUuid, approval),
      ]),
    );
    await drainQueue(resources.queueUrl, worker);

    let generated = 0;
    for (const articleUuid of articles) {
      const record = await show(accountId, articleUuid);
      expect(['generated', 'cancelled']).toContain(record.status);
      if (record.status === 'generated') generated++;
    }
    // Each article is either charged and generated, or refunded exactly once.
    expect(await credits(accountId)).toBe(CREDITS - generated * PRICE);
  });
});
