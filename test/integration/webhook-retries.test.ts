/**
 * The webhook retry schedule with the clock moved instead of waited for, against DynamoDB Local,
 * moto SQS/KMS and a receiver on 127.0.0.1: short waits travel as delayed queue messages, long
 * ones through the sweeper's index; every attempt carries the same webhook-id; after the 8th the
 * delivery is failed; a lost event message is sent again by the sweeper; a duplicate message
 * never makes a second attempt.
 */
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createWebhookHandler } from '../../functions/api/create-webhook';
import { createAccount } from '../../functions/core/accounts';
import type { Article } from '../../functions/core/articles/article';
import { LEASE_MS, MAX_GENERATION_ATTEMPTS } from '../../functions/core/articles/lifecycle-policy';
import { attemptDelivery, fanOut, resendDueWebhooks } from '../../functions/core/webhooks/deliver-webhooks';
import type { DeliveryKey, WebhookMessage } from '../../functions/core/webhooks/ports';
import { RESEND_AFTER_MS, RETRY_SCHEDULE_SECONDS } from '../../functions/core/webhooks/webhook';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { provisionTestResources } from '../support/test-resources';
import { recordEvent } from '../support/webhook-events';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

const sqs = new SQSClient({});
let resources: ProvisionedResources;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  resources = await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
});

afterAll(async () => {
  await receiver.close();
});

beforeEach(async () => {
  await sqs.send(new PurgeQueueCommand({ QueueUrl: resources.webhookQueueUrl }));
});

/** A clock the test moves. */
function testClock(start = Date.now()) {
  let now = start;
  return { now: () => new Date(now), advance: (seconds: number) => (now += seconds * 1000) };
}

async function register(accountId: string, path: string, events = ['article.generated']): Promise<string> {
  const response = await createWebhookHandler(
    apiEvent('create-webhook', {
      accountId,
      body: JSON.stringify({ url: `${receiver.url}${path}`, events }),
      contentType: 'application/json',
    }),
  );
  expect(response.statusCode).toBe(201);
  return JSON.parse(response.body).data.uuid;
}

/** The messages on the webhook queue now (the delayed ones show up only once their delay passed). */
async function takeMessages(): Promise<{ message: WebhookMessage; raw: Message }[]> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: resources.webhookQueueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
    }),
  );
  for (const raw of Messages ?? []) {
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: resources.webhookQueueUrl, ReceiptHandle: raw.ReceiptHandle }),
    );
  }
  return (Messages ?? []).map((raw) => ({ message: JSON.parse(raw.Body ?? '{}'), raw }));
}

async function delayedMessages(): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: resources.webhookQueueUrl,
      AttributeNames: ['ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
}

const accountIdOf = () => `acct-${Math.random().toString(16).slice(2)}`;

/** An article queued by the API for an account with credits (created if absent). */
async function queuedArticle(accountId?: string): Promise<Article> {
  const owner =
    accountId ??
    (
      await createAccount(
        { accounts: deps.accountStore(), tokens: deps.tokenStore() },
        { name: 'Events', credits: 20 },
      )
    ).account.accountId;
  const created = await createArticleHandler(
    apiEvent('create-article', {
      accountId: owner,
      body: JSON.stringify({
        keyword: 'never written',
        h2_count: 1,
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
      }),
      contentType: 'application/json',
    }),
  );
  const now = new Date();
  // Held by a worker (lease `LEASE`), as when the worker completes or fails it.
  const leased = await deps
    .articleStore()
    .takeLease(
      { accountId: owner, articleUuid: JSON.parse(created.body).article_uuid },
      LEASE,
      now.toISOString(),
      new Date(now.getTime() + LEASE_MS).toISOString(),
      MAX_GENERATION_ATTEMPTS,
    );
  if (leased.kind !== 'leased') throw new Error('the article is stored and leased');
  await sqs.send(new PurgeQueueCommand({ QueueUrl: resources.webhookQueueUrl }));
  return leased.article;
}

/** The lease id of the worker holding the articles of `queuedArticle`. */
const LEASE = 'the-worker-lease';

describe('the retry schedule', () => {
  it('follows immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with one webhook-id, then fails', async () => {
    const accountId = accountIdOf();
    const webhookUuid = await register(accountId, '/always-500');
    receiver.plan('/always-500', Array(8).fill(500));
    const clock = testClock();
    const delivery = { ...deps.eventRecordingDeps(), clock: clock.now };
    const attempts = { ...deps.webhookAttemptDeps(), clock: clock.now };

    const eventId = await recordEvent(delivery, accountId, 'article.generated', async () => ({
      status: 'generated',
    }));
    if (!eventId) throw new Error('the endpoint wants article.generated');
    const [eventMessage] = await takeMessages();
    expect(eventMessage?.message).toEqual({ kind: 'event', accountId, eventId });
    expect(await fanOut(delivery, { accountId, eventId })).toBe(1);
    const key: DeliveryKey = { accountId, eventId, webhookUuid };
    const [first] = await takeMessages();
    expect(first?.message).toEqual({ kind: 'delivery', ...key });

    const waits: string[] = [];
    for (let attempt = 1; attempt <= 8; attempt++) {
      expect(await attemptDelivery(attempts, key)).toBe(attempt === 8 ? 'failed' : 'retry_scheduled');
      if (attempt === 8) break;
      const wait = RETRY_SCHEDULE_SECONDS[attempt] ?? 0;
      // Not due yet: neither a duplicate message nor the sweeper makes the attempt early.
      expect(await attemptDelivery(attempts, key)).toBe('skipped');
      expect(await resendDueWebhooks(delivery)).toEqual({ events: 0, deliveries: 0 });
      clock.advance(wait);
      if (wait <= 900) {
        waits.push(`${wait} s by message`);
        expect(await delayedMessages()).toBe(1);
        if (wait <= 5) {
          // Short enough to wait for: the delayed message arrives and is the next attempt.
          await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 500));
          expect((await takeMessages()).map((entry) => entry.message)).toEqual([
            { kind: 'delivery', ...key },
          ]);
        } else {
          await sqs.send(new PurgeQueueCommand({ QueueUrl: resources.webhookQueueUrl }));
        }
      } else {
        waits.push(`${wait} s by the sweeper`);
        expect(await resendDueWebhooks(delivery)).toEqual({ events: 0, deliveries: 1 });
        expect((await takeMessages()).map((entry) => entry.message)).toEqual([{ kind: 'delivery', ...key }]);
      }
    }
    expect(waits).toEqual([
      '5 s by message',
      '300 s by message',
      '1800 s by the sweeper',
      '7200 s by the sweeper',
      '18000 s by the sweeper',
      '36000 s by the sweeper',
      '36000 s by the sweeper',
    ]);

    const requests = receiver.requestsTo('/always-500');
    expect(requests).toHaveLength(8);
    expect(new Set(requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([eventId]));
    expect((await deps.webhookStore().getDelivery(key))?.state).toBe('failed');
    const listed = await deps.webhookStore().listAttempts(accountId, webhookUuid, 20);
    expect(listed.map((attempt) => [attempt.attempt, attempt.result])).toEqual([
      [8, 'failed'],
      [7, 'retrying'],
      [6, 'retrying'],
      [5, 'retrying'],
      [4, 'retrying'],
      [3, 'retrying'],
      [2, 'retrying'],
      [1, 'retrying'],
    ]);
    // Nothing is left for the sweeper.
    clock.advance(86_400);
    expect(await resendDueWebhooks(delivery)).toEqual({ events: 0, deliveries: 0 });
  }, 60_000);

  it('sends a lost event message again from the outbox, and fans it out once', async () => {
    const accountId = accountIdOf();
    const webhookUuid = await register(accountId, '/lost');
    const clock = testClock();
    const delivery = { ...deps.eventRecordingDeps(), clock: clock.now };
    const eventId = await recordEvent(delivery, accountId, 'article.generated', async () => ({}));
    await takeMessages(); // the message is lost
    clock.advance(60);
    expect(await resendDueWebhooks(delivery)).toEqual({ events: 0, deliveries: 0 });
    clock.advance(90);
    expect(await resendDueWebhooks(delivery)).toEqual({ events: 1, deliveries: 0 });
    expect((await takeMessages()).map((entry) => entry.message)).toEqual([
      { kind: 'event', accountId, eventId },
    ]);
    expect(await fanOut(delivery, { accountId, eventId: eventId ?? '' })).toBe(1);
    expect(await fanOut(delivery, { accountId, eventId: eventId ?? '' })).toBe(0);
    const key = { accountId, eventId: eventId ?? '', webhookUuid };
    const attempts = { ...deps.webhookAttemptDeps(), clock: clock.now };
    const outcomes = await Promise.all([attemptDelivery(attempts, key), attemptDelivery(attempts, key)]);
    expect(outcomes.sort()).toEqual(['skipped', 'succeeded']);
    expect(receiver.requestsTo('/lost')).toHaveLength(1);
  });

  it('records nothing for an account without a webhook for the type', async () => {
    const accountId = accountIdOf();
    const delivery = deps.webhookDeliveryDeps();
    let read = false;
    const eventId = await recordEvent(delivery, accountId, 'article.published', async () => {
      read = true;
      return {};
    });
    expect(eventId).toBeUndefined();
    expect(read).toBe(false);
    expect(await takeMessages()).toEqual([]);
  });

  it('records article.failed when a generation fails for good, with the refunded record', async () => {
    const { account } = await createAccount(
      { accounts: deps.accountStore(), tokens: deps.tokenStore() },
      { name: 'Failing', credits: 20 },
    );
    const accountId = account.accountId;
    await register(accountId, '/failed', ['article.failed']);
    const article = await queuedArticle(accountId);
    const articleUuid = article.articleUuid;

    // The store the worker and the sweeper use: failing the article records the event.
    expect(
      await deps.articlesWithEvents().failGeneration(article, 'model down', new Date().toISOString(), LEASE),
    ).toBe(true);
    const [message] = await takeMessages();
    if (message?.message.kind !== 'event') throw new Error('an event message is sent');
    expect(await fanOut(deps.webhookDeliveryDeps(), message.message)).toBe(1);
    const [delivery] = await takeMessages();
    if (delivery?.message.kind !== 'delivery') throw new Error('a delivery message is sent');
    expect(await attemptDelivery(deps.webhookAttemptDeps(), delivery.message)).toBe('succeeded');
    const event = JSON.parse(receiver.requestsTo('/failed')[0]?.body ?? '{}');
    expect(event).toMatchObject({
      type: 'article.failed',
      data: { status: 'error', data: { uuid: articleUuid, generation_error: 1 } },
    });
    // Failing it again (another delivery) is no change, and no second event.
    expect(
      await deps.articlesWithEvents().failGeneration(article, 'model down', new Date().toISOString(), LEASE),
    ).toBe(false);
    expect(await takeMessages()).toEqual([]);
  });
});

describe('a producer that dies right after its change', () => {
  /**
   * From the commit of the first transaction whose input mentions `marker`, every DynamoDB call
   * of this process fails: nothing after that commit happens, as if the process died there.
   */
  function dieRightAfterCommit(marker: string) {
    const client = dynamoDocumentClient();
    let dead = false;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (dead) throw new Error('The process died.');
        const result = await next(args);
        if (
          String(context.commandName).startsWith('TransactWrite') &&
          JSON.stringify(args.input).includes(marker)
        ) {
          dead = true;
        }
        return result;
      },
      { step: 'initialize', name: 'dieRightAfterCommit' },
    );
    return {
      died: () => dead,
      restart: () => client.middlewareStack.remove('dieRightAfterCommit'),
    };
  }

  const generated = () => ({
    title: 'Written',
    content: '<h2>One</h2><p>Text</p>',
    totalWords: 2,
    providerModel: 'gpt-3.5-turbo',
    promptTokens: 1,
    completionTokens: 1,
    generatedAt: new Date().toISOString(),
  });

  /** After the restart: the sweeper's run once the re-send time passed, then the dispatcher. */
  async function sweepAndDeliver(accountId: string, path: string) {
    const later = new Date(Date.now() + RESEND_AFTER_MS + 1_000);
    await resendDueWebhooks({ ...deps.eventRecordingDeps(), clock: () => later });
    const events = (await takeMessages()).filter((entry) => entry.message.accountId === accountId);
    expect(events.map((entry) => entry.message.kind)).toEqual(['event']);
    const [event] = events;
    if (event?.message.kind !== 'event') throw new Error('an event message');
    expect(await fanOut(deps.webhookDeliveryDeps(), event.message)).toBe(1);
    const [delivery] = await takeMessages();
    if (delivery?.message.kind !== 'delivery') throw new Error('a delivery message');
    expect(await attemptDelivery(deps.webhookAttemptDeps(), delivery.message)).toBe('succeeded');
    const requests = receiver.requestsTo(path);
    expect(requests).toHaveLength(1);
    return { webhookId: event.message.eventId, body: JSON.parse(requests[0]?.body ?? '{}') };
  }

  it('article.generated: stored with the article, finished and sent by the sweeper', async () => {
    const article = await queuedArticle();
    await register(article.accountId, '/died-generated', ['article.generated']);
    const crash = dieRightAfterCommit('generatedTitle');
    const result = generated();
    try {
      await deps.articlesWithEvents().completeGeneration(article, LEASE, result);
    } finally {
      crash.restart();
    }
    expect(crash.died()).toBe(true);
    expect(await takeMessages()).toEqual([]);
    expect((await deps.articleStore().get(article.accountId, article.articleUuid))?.state).toBe('generated');
    // Another delivery of the message finds it generated: no change, so no second event.
    expect(await deps.articlesWithEvents().completeGeneration(article, LEASE, result)).toBe(false);

    const { body } = await sweepAndDeliver(article.accountId, '/died-generated');
    expect(body).toMatchObject({
      type: 'article.generated',
      data: { status: 'generated', data: { uuid: article.articleUuid, title: 'Written' } },
    });
  });

  it('article.published: stored with the publication, finished and sent by the sweeper', async () => {
    const article = await queuedArticle();
    expect(await deps.articleStore().completeGeneration(article, LEASE, generated())).toBe(true);
    await register(article.accountId, '/died-published', ['article.published']);
    const crash = dieRightAfterCommit('cmsPermalink');
    const post = { cmsId: '42', cmsPermalink: 'https://blog.example.com/written/' };
    try {
      await deps.publicationsWithEvents().markPublished(article, post);
    } finally {
      crash.restart();
    }
    expect(crash.died()).toBe(true);
    expect(await takeMessages()).toEqual([]);
    expect(await deps.publicationsWithEvents().markPublished(article, post)).toBe(false);

    const { body } = await sweepAndDeliver(article.accountId, '/died-published');
    expect(body).toMatchObject({
      type: 'article.published',
      data: { status: 'generated', data: { uuid: article.articleUuid } },
    });
  });

  it('article.failed: stored with the refund, finished and sent by the sweeper', async () => {
    const article = await queuedArticle();
    await register(article.accountId, '/died-failed', ['article.failed']);
    const crash = dieRightAfterCommit('failedAt');
    try {
      await deps.articlesWithEvents().failGeneration(article, 'model down', new Date().toISOString(), LEASE);
    } finally {
      crash.restart();
    }
    expect(crash.died()).toBe(true);
    expect(await takeMessages()).toEqual([]);
    expect(
      await deps.articlesWithEvents().failGeneration(article, 'model down', new Date().toISOString(), LEASE),
    ).toBe(false);

    const { body } = await sweepAndDeliver(article.accountId, '/died-failed');
    expect(body).toMatchObject({
      type: 'article.failed',
      data: { status: 'error', data: { uuid: article.articleUuid } },
    });
  });

  it('article.publish_failed: stored with the final failure, finished and sent by the sweeper', async () => {
    const article = await queuedArticle();
    expect(await deps.articleStore().completeGeneration(article, LEASE, generated())).toBe(true);
    // Its publication pending, as for an article linked to a website.
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: process.env.ARTICLES_TABLE,
        Key: { accountId: article.accountId, articleUuid: article.articleUuid },
        UpdateExpression: 'SET publishState = :pending',
        ExpressionAttributeValues: { ':pending': 'pending' },
      }),
    );
    await register(article.accountId, '/died-publish-failed', ['article.publish_failed']);
    const failure = {
      attempts: 8,
      lastError: 'invalid_request: refused',
      failedAt: new Date().toISOString(),
    };
    const crash = dieRightAfterCommit('publishFailedAt');
    try {
      await deps.publicationsWithEvents().markFailed(article, failure);
    } finally {
      crash.restart();
    }
    expect(crash.died()).toBe(true);
    expect(await takeMessages()).toEqual([]);
    expect(await deps.publicationsWithEvents().markFailed(article, failure)).toBe(false);

    const { body } = await sweepAndDeliver(article.accountId, '/died-publish-failed');
    expect(body).toMatchObject({
      type: 'article.publish_failed',
      data: { data: { uuid: article.articleUuid } },
    });
  });

  it('website.unhealthy: stored with the flag, finished and sent by the sweeper', async () => {
    const accountId = accountIdOf();
    await register(accountId, '/died-unhealthy', ['website.unhealthy']);
    const websiteUuid = crypto.randomUUID();
    await deps.websiteStore().create(
      {
        accountId,
        websiteUuid,
        url: `https://${websiteUuid}.example.com`,
        login: 'inkpress',
        passwordCiphertext: 'not-used-here',
        loginIsUnauthorized: false,
        isUnreachable: false,
        totalCreditsUsed: 0,
        articlesCount: 0,
        categoriesCount: 0,
        createdAt: new Date().toISOString(),
      },
      `${websiteUuid}.example.com`,
    );
    const crash = dieRightAfterCommit('isUnreachable');
    try {
      await deps.websitesWithEvents().recordHealth(accountId, websiteUuid, { isUnreachable: true });
    } finally {
      crash.restart();
    }
    expect(crash.died()).toBe(true);
    expect(await takeMessages()).toEqual([]);
    // The flag is set already: writing it again is no change of health, so no second event.
    await deps.websitesWithEvents().recordHealth(accountId, websiteUuid, { isUnreachable: true });

    const { body } = await sweepAndDeliver(accountId, '/died-unhealthy');
    expect(body).toMatchObject({ type: 'website.unhealthy', data: { data: { uuid: websiteUuid } } });
  });
});
