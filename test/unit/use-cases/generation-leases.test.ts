/**
 * Lease ownership of a generation attempt: only used-up attempts fail an article, every write of
 * an attempt is conditional on its lease id, a lost lease or a spent budget stops the attempt
 * (its model call with it), and a duplicate delivery never reaches the dead-letter queue.
 */
import { abortable, OfflineArticleModel } from '../../../functions/adapters/model/offline-article-model';
import type { ArticleModelProvider } from '../../../functions/core/articles/article-model';
import { leaseRefusal } from '../../../functions/core/articles/article-rules';
import { createArticle } from '../../../functions/core/articles/create-article';
import {
  AttemptTimeoutError,
  deliveryKept,
  type GenerationAttemptResult,
  generateQueuedArticle,
  LeaseLostError,
  LeaseRenewalError,
} from '../../../functions/core/articles/generate-article';
import {
  ATTEMPT_BUDGET_MS,
  LEASE_MS,
  LEASE_RENEW_MS,
  MAX_GENERATION_ATTEMPTS,
  storageFailureRetryDelaySeconds,
} from '../../../functions/core/articles/lifecycle-policy';
import type { GenerationLifecycle } from '../../../functions/core/articles/ports';
import { runtimeSettings, visibilityTimeoutSeconds } from '../../../functions/shared/runtime-settings';
import { createFakes, FakeDelivery, type Fakes } from '../../support/fakes';
import { articleInput, createDeps, generateDeps, PRICE } from './helpers';

async function queued() {
  const fakes = createFakes();
  const accountId = await fakes.account(10);
  const article = await createArticle(createDeps(fakes), accountId, articleInput());
  return { fakes, accountId, article };
}

/** `leaseId` takes the article's lease now, for `LEASE_MS`. */
async function lease(fakes: Fakes, article: { accountId: string; articleUuid: string }, leaseId: string) {
  const now = fakes.clock();
  return fakes.articles.takeLease(
    article,
    leaseId,
    now.toISOString(),
    new Date(now.getTime() + LEASE_MS).toISOString(),
    MAX_GENERATION_ATTEMPTS,
  );
}

/** Whether `promise` has settled once pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await jest.advanceTimersByTimeAsync(0);
  return done;
}

describe('only used-up attempts fail an article', () => {
  it('a queued article with attempts left and no live lease is not exhausted', async () => {
    const { fakes, article } = await queued();
    await lease(fakes, article, 'holder');
    await fakes.articles.releaseLease(article, 'holder', 'model down', fakes.clock().toISOString());
    const current = await fakes.articles.get(article.accountId, article.articleUuid);

    const refusal = leaseRefusal(current, fakes.clock().toISOString(), MAX_GENERATION_ATTEMPTS);

    expect(refusal.kind).toBe('released');
  });

  it('a duplicate that loses the race with the holder’s retry neither fails nor refunds the article', async () => {
    const { fakes, accountId, article } = await queued();
    await lease(fakes, article, 'holder');
    // As the DynamoDB store does it: the conditional take fails (the holder has the lease), the
    // holder gives the lease back for its retry, then the refusal is read.
    const racing: GenerationLifecycle = Object.create(fakes.articles);
    racing.takeLease = async (ref, leaseId, now, until, max) => {
      const refused = await fakes.articles.takeLease(ref, leaseId, now, until, max);
      expect(refused.kind).toBe('busy');
      await fakes.articles.releaseLease(ref, 'holder', 'model down', now);
      return leaseRefusal(await fakes.articles.get(ref.accountId, ref.articleUuid), now, max);
    };

    const result = await generateQueuedArticle(
      { ...generateDeps(fakes), articles: racing },
      article,
      new FakeDelivery(),
    );

    expect(result.outcome).toBe('duplicate');
    expect(fakes.articles.row(article)?.article).toMatchObject({ state: 'queued', creditsCharged: PRICE });
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10 - PRICE);
  });

  it('the sweeper’s failure (no lease id) needs every attempt used and no live lease', async () => {
    const { fakes, article } = await queued();
    const at = () => fakes.clock().toISOString();
    await lease(fakes, article, 'first');
    await fakes.articles.releaseLease(article, 'first', 'model down', at());
    expect(await fakes.articles.failGeneration(article, 'stalled', at())).toBe(false);
    for (let attempt = 1; attempt < MAX_GENERATION_ATTEMPTS; attempt++) {
      fakes.time.advance(LEASE_MS + 1);
      await lease(fakes, article, `worker-${attempt}`);
    }
    // The last worker's lease is live: not yet.
    expect(await fakes.articles.failGeneration(article, 'stalled', at())).toBe(false);
    fakes.time.advance(LEASE_MS + 1);
    expect(await fakes.articles.failGeneration(article, 'stalled', at())).toBe(true);
  });
});

describe('every write of an attempt is conditional on its lease id', () => {
  it('a worker whose lease expired and was taken over does not complete the article', async () => {
    const { fakes, article } = await queued();
    // While the first worker writes, its lease runs out and another delivery takes the article.
    const models: ArticleModelProvider = {
      modelFor: async (aiModel, signal) => {
        const model = await fakes.models.modelFor(aiModel, signal);
        return {
          ...model,
          outline: async (...args) => {
            fakes.time.advance(LEASE_MS + 1);
            expect((await lease(fakes, article, 'takeover')).kind).toBe('leased');
            return model.outline(...args);
          },
        };
      },
    };

    const result = await generateQueuedArticle(
      { ...generateDeps(fakes), models },
      article,
      new FakeDelivery(),
    );

    expect(result.outcome).toBe('skipped');
    expect(fakes.articles.row(article)?.article).toMatchObject({
      state: 'queued',
      leaseOwner: 'takeover',
      generationAttempts: 2,
    });
  });

  it('a worker that lost its lease cannot fail the article or give the lease back', async () => {
    const { fakes, accountId, article } = await queued();
    for (let attempt = 0; attempt < MAX_GENERATION_ATTEMPTS - 1; attempt++) {
      await lease(fakes, article, `old-${attempt}`);
      fakes.time.advance(LEASE_MS + 1);
    }
    await lease(fakes, article, 'holder');
    const at = fakes.clock().toISOString();

    expect(await fakes.articles.failGeneration(article, 'model down', at, 'old-0')).toBe(false);
    await fakes.articles.releaseLease(article, 'old-1', 'model down', at);

    expect(fakes.articles.row(article)?.article).toMatchObject({ state: 'queued', leaseOwner: 'holder' });
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10 - PRICE);
    expect(await fakes.articles.failGeneration(article, 'model down', at, 'holder')).toBe(true);
  });
});

describe('an attempt stops', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('when a renewal is refused: the model call is aborted and nothing is written', async () => {
    const { fakes, article } = await queued();
    fakes.models.hangNext();
    const attempt = generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
    await jest.advanceTimersByTimeAsync(0);
    // The lease ran out unnoticed and another delivery took the article.
    fakes.time.advance(LEASE_MS + 1);
    expect((await lease(fakes, article, 'takeover')).kind).toBe('leased');

    await jest.advanceTimersByTimeAsync(LEASE_RENEW_MS);

    expect(await settled(attempt)).toBe(true);
    const result = await attempt;
    expect(result.outcome).toBe('lease_lost');
    expect(deliveryKept(result.outcome)).toBe(false);
    expect(fakes.models.signals[0]?.aborted).toBe(true);
    expect(fakes.models.signals[0]?.reason).toBeInstanceOf(LeaseLostError);
    expect(fakes.articles.row(article)?.article).toMatchObject({ state: 'queued', leaseOwner: 'takeover' });
  });

  it('when renewals fail until the lease could run out: a failed attempt, retried', async () => {
    const { fakes, article } = await queued();
    fakes.models.hangNext();
    const articles: GenerationLifecycle = Object.create(fakes.articles);
    articles.renewLease = async () => {
      throw new Error('Storage is down.');
    };
    const delivery = new FakeDelivery();
    const attempt = generateQueuedArticle({ ...generateDeps(fakes), articles }, article, delivery);

    // One failed renewal leaves the lease 40 s: the attempt goes on.
    fakes.time.advance(LEASE_RENEW_MS);
    await jest.advanceTimersByTimeAsync(LEASE_RENEW_MS);
    expect(await settled(attempt)).toBe(false);
    // The second leaves it no time to the next renewal: it stops.
    fakes.time.advance(LEASE_RENEW_MS);
    await jest.advanceTimersByTimeAsync(LEASE_RENEW_MS);

    expect(await settled(attempt)).toBe(true);
    expect(await attempt).toMatchObject({ outcome: 'retry_scheduled', retryInSeconds: 30 });
    expect(fakes.models.signals[0]?.reason).toBeInstanceOf(LeaseRenewalError);
    expect(fakes.articles.row(article)?.article.leaseOwner).toBeUndefined();
  });

  it('with the worker’s timings shortened (INKPRESS_GENERATION_LEASE_SECONDS, _RETRY_SECONDS): the lease, its renewals and the retries follow them', async () => {
    const { fakes, article } = await queued();
    fakes.models.hangNext();
    const timings = { leaseMs: 6_000, firstRetrySeconds: 2 };
    const start = fakes.clock().getTime();
    const renewals: string[] = [];
    const articles: GenerationLifecycle = Object.create(fakes.articles);
    articles.renewLease = async (_article, _leaseId, until) => {
      renewals.push(until);
      throw new Error('Storage is down.');
    };
    const delivery = new FakeDelivery();
    const attempt = generateQueuedArticle({ ...generateDeps(fakes), articles, timings }, article, delivery);
    await jest.advanceTimersByTimeAsync(0);
    expect(fakes.articles.row(article)?.article.leaseExpiresAt).toBe(new Date(start + 6_000).toISOString());

    // A renewal every third of the lease; the second failed one leaves no time: it stops.
    fakes.time.advance(2_000);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(renewals).toEqual([new Date(start + 8_000).toISOString()]);
    expect(await settled(attempt)).toBe(false);
    fakes.time.advance(2_000);
    await jest.advanceTimersByTimeAsync(2_000);

    expect(await settled(attempt)).toBe(true);
    expect(await attempt).toMatchObject({ outcome: 'retry_scheduled', retryInSeconds: 2 });
    expect(delivery.retries).toEqual([2]);
    // A delivery that failed on storage comes back once such a lease ran out (plus 5 s for clocks).
    expect(storageFailureRetryDelaySeconds(1, timings)).toBe(11);
    expect(storageFailureRetryDelaySeconds(1)).toBe(65);
  });

  it('when its time budget is spent: the model call gets the abort, and the attempt is retried', async () => {
    const { fakes, article } = await queued();
    fakes.models.hangNext();
    const attempt = generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());

    await jest.advanceTimersByTimeAsync(ATTEMPT_BUDGET_MS - 1);
    expect(fakes.models.signals[0]?.aborted).toBe(false);
    await jest.advanceTimersByTimeAsync(1);

    expect(fakes.models.signals[0]?.aborted).toBe(true);
    expect(fakes.models.signals[0]?.reason).toBeInstanceOf(AttemptTimeoutError);
    expect(await attempt).toMatchObject({ outcome: 'retry_scheduled' });
    expect((await attempt).failure).toContain('AttemptTimeoutError');
  });
});

describe('the offline writer', () => {
  it('stops once the attempt’s signal aborted', async () => {
    const attempt = new AbortController();
    const model = abortable(new OfflineArticleModel(), attempt.signal);
    attempt.abort(new AttemptTimeoutError());
    await expect(model.outline(articleBrief())).rejects.toBeInstanceOf(AttemptTimeoutError);
  });
});

function articleBrief() {
  return {
    keyword: 'sourdough',
    language: 'en',
    languageName: 'English',
    h2Count: 2,
    needBold: false,
    focusKeyword: 'sourdough',
    faqCount: 0,
    autoTags: false,
  };
}

/**
 * SQS as the worker sees it: a message is received when visible (counting a receive), kept to
 * come back after the delay it asked for (or the visibility timeout), deleted otherwise, and
 * moved to the dead-letter queue when it is received more than `maxReceiveCount` times.
 */
class SimulatedDelivery {
  receives = 0;
  visibleAt = 0;
  state: 'queued' | 'deleted' | 'dead-letter' = 'queued';

  async deliver(fakes: Fakes, article: { accountId: string; articleUuid: string }): Promise<void> {
    const now = fakes.clock().getTime();
    if (this.state !== 'queued' || now < this.visibleAt) return;
    this.receives++;
    if (this.receives > runtimeSettings.maxReceiveCount) {
      this.state = 'dead-letter';
      return;
    }
    let retryInSeconds = visibilityTimeoutSeconds;
    const result: GenerationAttemptResult = await generateQueuedArticle(generateDeps(fakes), article, {
      retryAfter: async (seconds) => {
        retryInSeconds = seconds;
      },
    });
    if (deliveryKept(result.outcome)) this.visibleAt = now + retryInSeconds * 1000;
    else this.state = 'deleted';
  }
}

describe('a duplicate delivery during a 10-minute attempt', () => {
  it('never reaches the dead-letter queue', async () => {
    const { fakes, article } = await queued();
    const holder = 'ten-minute-attempt';
    await lease(fakes, article, holder);
    const duplicates = [new SimulatedDelivery(), new SimulatedDelivery(), new SimulatedDelivery()];

    // Ten minutes, second by second: the holder renews its lease, the duplicates come when visible.
    for (let second = 0; second < 600; second++) {
      if (second % (LEASE_RENEW_MS / 1000) === 0) {
        const until = new Date(fakes.clock().getTime() + LEASE_MS).toISOString();
        expect(await fakes.articles.renewLease(article, holder, until)).toBe(true);
      }
      for (const duplicate of duplicates) await duplicate.deliver(fakes, article);
      fakes.time.advance(1000);
    }

    expect(duplicates.map((duplicate) => duplicate.state)).toEqual(['deleted', 'deleted', 'deleted']);
    expect(duplicates.map((duplicate) => duplicate.receives)).toEqual([1, 1, 1]);
    expect(fakes.articles.row(article)?.article).toMatchObject({
      state: 'queued',
      leaseOwner: holder,
      generationAttempts: 1,
    });
  });
});
