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
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createWebhookHandler } from '../../functions/api/create-webhook';
import { handler as retryArticleHandler } from '../../functions/api/retry-article';
import { createAccount } from '../../functions/core/accounts';
import type { Article } from '../../functions/core/articles/article';
import { LEASE_MS, MAX_GENERATION_ATTEMPTS } from '../../functions/core/articles/lifecycle-policy';
import { showArticle } from '../../functions/core/articles/read-articles';
import { attemptDelivery, fanOut, resendDueWebhooks } from '../../functions/core/webhooks/deliver-webhooks';
import type { DeliveryKey, WebhookMessage } from '../../functions/core/webhooks/ports';
import { RESEND_AFTER_MS, RETRY_SCHEDULE_SECONDS } from '../../functions/core/webhooks/webhook';
import { showIndexedWebsite } from '../../functions/core/websites/site-index';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import { sqsClient } from '../../functions/shared/aws/sqs';
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

/** A website of the account, stored directly (nothing here calls it). */
async function storedWebsite(accountId: string): Promise<string> {
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
  return websiteUuid;
}

/** An account with credits. */
async function accountWithCredits(): Promise<string> {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Events', credits: 20 },
  );
  return account.accountId;
}

/**
 * An article queued by the API for an account with credits (created if absent), for
 * `websiteUuid` when given.
 */
async function queuedArticle(accountId?: string, websiteUuid?: string): Promise<Article> {
  const owner = accountId ?? (await accountWithCredits());
  const created = await createArticleHandler(
    apiEvent('create-article', {
      accountId: owner,
      body: JSON.stringify({
        keyword: 'never written',
        h2_count: 1,
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        ...(websiteUuid ? { website_uuid: websiteUuid } : {}),
      }),
      contentType: 'application/json',
    }),
  );
  expect(created.statusCode).toBe(202);
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
    const delivery = { ...deps.eventResendDeps(), clock: clock.now };
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
    const delivery = { ...deps.eventResendDeps(), clock: clock.now };
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

/**
 * The event's body is the record as the change's transaction left it (written in that
 * transaction): however the record changes before the sweeper finds the event, the receiver gets
 * what `show` answered right after the change. (These failed before 2026-11-28, when the
 * sweeper read the record back for the body: they got the later state.)
 */
describe('a producer that dies right after its change', () => {
  /**
   * From the commit of the first transaction whose input mentions `marker`, every DynamoDB and
   * SQS call of this process fails: nothing after that commit happens, as if the process died there.
   */
  function dieRightAfterCommit(marker: string) {
    const dynamo = dynamoDocumentClient();
    const sqs = sqsClient();
    let dead = false;
    const options = { step: 'initialize', name: 'dieRightAfterCommit' } as const;
    const after = (commandName: unknown, input: unknown) => {
      if (String(commandName).startsWith('TransactWrite') && JSON.stringify(input).includes(marker)) {
        dead = true;
      }
    };
    dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        if (dead) throw new Error('The process died.');
        const result = await next(args);
        after(context.commandName, args.input);
        return result;
      },
      options,
    );
    sqs.middlewareStack.add(
      (next) => async (args) => {
        if (dead) throw new Error('The process died.');
        return next(args);
      },
      options,
    );
    return {
      died: () => dead,
      restart: () => {
        dynamo.middlewareStack.remove('dieRightAfterCommit');
        sqs.middlewareStack.remove('dieRightAfterCommit');
      },
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
    await resendDueWebhooks({ ...deps.eventResendDeps(), clock: () => later });
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

  /** The article as `show` answers now. */
  const shownArticle = (article: Article) =>
    showArticle(deps.readArticleDeps(), article.accountId, article.articleUuid);

  const post = { cmsId: '42', cmsPermalink: 'https://blog.example.com/written/' };

  it('article.generated: the article as generated, though published before the sweeper sends it', async () => {
    const accountId = await accountWithCredits();
    const article = await queuedArticle(accountId, await storedWebsite(accountId));
    await register(accountId, '/died-generated', ['article.generated']);
    const crash = dieRightAfterCommit('generatedTitle');
    const result = generated();
    try {
      await deps.articlesWithEvents().completeGeneration(article, LEASE, result);
    } finally {
      crash.restart();
    }
    expect(crash.died()).toBe(true);
    expect(await takeMessages()).toEqual([]);
    const shown = await shownArticle(article);
    expect(shown).toMatchObject({
      status: 'generated',
      data: { title: 'Written', publication: { state: 'waiting' } },
    });
    // Another delivery of the message finds it generated: no change, so no second event.
    expect(await deps.articlesWithEvents().completeGeneration(article, LEASE, result)).toBe(false);
    // Published before the sweeper finds the event.
    expect(await deps.publicationStore().markPublished(article, post)).toBe(true);
    expect((await shownArticle(article)).data.publication?.state).toBe('published');

    const { body } = await sweepAndDeliver(accountId, '/died-generated');
    expect(body).toMatchObject({ type: 'article.generated' });
    expect(body.data).toEqual(JSON.parse(JSON.stringify(shown)));
  });

  it('article.published: the publication as made, though the read-back changed it before the sweeper sends it', async () => {
    const accountId = await accountWithCredits();
    const article = await queuedArticle(accountId, await storedWebsite(accountId));
    expect(await deps.articleStore().completeGeneration(article, LEASE, generated())).toBe(true);
    await register(accountId, '/died-published', ['article.published']);
    const crash = dieRightAfterCommit('cmsPermalink');
    const confirmAt = new Date(Date.now() + 3_600_000).toISOString();
    try {
      await deps.publicationsWithEvents().markPublished(article, { ...post, confirmAt });
    } finally {
      crash.restart();
    }
    expect(crash.died()).toBe(true);
    expect(await takeMessages()).toEqual([]);
    const shown = await shownArticle(article);
    expect(shown.data).toMatchObject({ cms_id: '42', cms_permalink: post.cmsPermalink });
    expect(await deps.publicationsWithEvents().markPublished(article, post)).toBe(false);
    // The scheduled post read back later: the site moved it.
    expect(
      await deps.publicationStore().recordScheduleCheck(article, {
        checks: 1,
        stillScheduled: false,
        post: { cmsPermalink: 'https://blog.example.com/moved/' },
      }),
    ).toBe(true);
    expect((await shownArticle(article)).data).toMatchObject({
      cms_permalink: 'https://blog.example.com/moved/',
    });

    const { body } = await sweepAndDeliver(accountId, '/died-published');
    expect(body).toMatchObject({ type: 'article.published' });
    expect(body.data).toEqual(JSON.parse(JSON.stringify(shown)));
  });

  it('article.failed: the article as failed, though retried before the sweeper sends it', async () => {
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
    const shown = await shownArticle(article);
    expect(shown).toMatchObject({ status: 'error', data: { generation_error: 1 } });
    expect(
      await deps.articlesWithEvents().failGeneration(article, 'model down', new Date().toISOString(), LEASE),
    ).toBe(false);
    // The customer retries it before the sweeper finds the event.
    const retried = await retryArticleHandler(
      apiEvent('retry-article', {
        accountId: article.accountId,
        pathParameters: { article_uuid: article.articleUuid },
      }),
    );
    expect(retried.statusCode).toBeLessThan(300);
    expect((await shownArticle(article)).status).toBe('in_progress');

    const { body } = await sweepAndDeliver(article.accountId, '/died-failed');
    expect(body).toMatchObject({ type: 'article.failed' });
    expect(body.data).toEqual(JSON.parse(JSON.stringify(shown)));
  });

  it('article.publish_failed: the publication as given up, though retried before the sweeper sends it', async () => {
    const accountId = await accountWithCredits();
    const article = await queuedArticle(accountId, await storedWebsite(accountId));
    expect(await deps.articleStore().completeGeneration(article, LEASE, generated())).toBe(true);
    await register(accountId, '/died-publish-failed', ['article.publish_failed']);
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
    const shown = await shownArticle(article);
    expect(shown.data.publication).toMatchObject({ state: 'failed', last_error: failure.lastError });
    expect(await deps.publicationsWithEvents().markFailed(article, failure)).toBe(false);
    // Retried before the sweeper finds the event: waiting again.
    expect(await deps.publicationStore().requeueFailed(article, new Date().toISOString())).toBe(true);
    expect((await shownArticle(article)).data.publication?.state).toBe('waiting');

    const { body } = await sweepAndDeliver(accountId, '/died-publish-failed');
    expect(body).toMatchObject({ type: 'article.publish_failed' });
    expect(body.data).toEqual(JSON.parse(JSON.stringify(shown)));
  });

  it('website.unhealthy: the website as flagged, though it recovered before the sweeper sends it', async () => {
    const accountId = accountIdOf();
    await register(accountId, '/died-unhealthy', ['website.unhealthy']);
    const websiteUuid = await storedWebsite(accountId);
    const crash = dieRightAfterCommit('isUnreachable');
    try {
      await deps.websitesWithEvents().recordHealth(accountId, websiteUuid, { isUnreachable: true });
    } finally {
      crash.restart();
    }
    expect(crash.died()).toBe(true);
    expect(await takeMessages()).toEqual([]);
    const shown = await showIndexedWebsite(
      { websites: deps.websiteStore(), siteIndex: deps.siteIndexStore() },
      accountId,
      websiteUuid,
    );
    expect(shown.status.is_unreachable).toBe(1);
    // The flag is set already: writing it again is no change of health, so no second event.
    await deps.websitesWithEvents().recordHealth(accountId, websiteUuid, { isUnreachable: true });
    // It answers again before the sweeper finds the event (a store without events: no recovered event).
    await deps.websiteStore().recordHealth(accountId, websiteUuid, { isUnreachable: false });

    const { body } = await sweepAndDeliver(accountId, '/died-unhealthy');
    expect(body).toMatchObject({ type: 'website.unhealthy' });
    expect(body.data).toEqual(JSON.parse(JSON.stringify(shown)));
  });
});
