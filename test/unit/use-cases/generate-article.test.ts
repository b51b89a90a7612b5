/** The worker's generation: leases, attempts with backoff, one completion, one refund. */
import { createArticle } from '../../../functions/core/articles/create-article';
import { deliveryKept, generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import {
  LEASE_MS,
  MAX_GENERATION_ATTEMPTS,
  PUBLISH_GRACE_MS,
  RETRY_DELIVERY_GRACE_MS,
} from '../../../functions/core/articles/lifecycle-policy';
import { recoverStalledGenerations } from '../../../functions/core/articles/sweep-articles';
import { createFakes, FakeDelivery } from '../../support/fakes';
import { articleInput, createDeps, generateDeps, PRICE, sweepDeps } from './helpers';

async function queued(credits = 10, fields: Record<string, unknown> = {}) {
  const fakes = createFakes();
  const accountId = await fakes.account(credits);
  const article = await createArticle(createDeps(fakes), accountId, articleInput(fields));
  return { fakes, accountId, article };
}

describe('generateQueuedArticle', () => {
  it('generates once: first place in the list, counted on the website and in the day’s usage', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId);
    const article = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ website_uuid: website.websiteUuid, title: 'Bread at home' }),
    );

    const result = await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());

    expect(result.outcome).toBe('generated');
    const stored = fakes.articles.row(article);
    expect(stored?.article).toMatchObject({
      state: 'generated',
      generatedSeq: 1,
      generationAttempts: 1,
      slug: 'bread-at-home',
      publishState: 'pending',
      providerModel: 'fake-gpt-3.5-turbo',
    });
    expect(stored?.article.leaseOwner).toBeUndefined();
    expect(stored?.queued).toBe(false);
    expect(stored?.sweep).toEqual({
      kind: 'publication',
      at: new Date(fakes.clock().getTime() + PUBLISH_GRACE_MS).toISOString(),
    });
    expect(await fakes.websites.get(accountId, website.websiteUuid)).toMatchObject({
      articlesCount: 1,
      totalCreditsUsed: PRICE,
    });
    expect(await fakes.usage.listDays(accountId, '2026-03-01', '2026-03-01')).toEqual([
      {
        day: '2026-03-01',
        articlesGenerated: 1,
        creditsUsed: PRICE,
        websites: [{ websiteUuid: website.websiteUuid, articlesGenerated: 1, creditsUsed: PRICE }],
      },
    ]);
    expect((await fakes.accounts.get(accountId))?.generatedCount).toBe(1);
  });

  it('skips a delivery of an article generated already: no second place, no second count', async () => {
    const { fakes, accountId, article } = await queued();
    await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());

    const again = await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());

    expect(again.outcome).toBe('skipped');
    expect((await fakes.accounts.get(accountId))?.generatedCount).toBe(1);
    expect(await fakes.usage.listDays(accountId, '2026-03-01', '2026-03-01')).toMatchObject([
      { articlesGenerated: 1 },
    ]);
  });

  it('gives a failed attempt back with its backoff, keeping the credits held', async () => {
    const { fakes, accountId, article } = await queued();
    fakes.models.failNext();
    const delivery = new FakeDelivery();

    const result = await generateQueuedArticle(generateDeps(fakes), article, delivery);

    expect(result).toMatchObject({ outcome: 'retry_scheduled', retryInSeconds: 30 });
    expect(delivery.retries).toEqual([30]);
    const stored = fakes.articles.row(article);
    expect(stored?.article).toMatchObject({ state: 'queued', generationAttempts: 1, creditsCharged: PRICE });
    expect(stored?.article.lastError).toContain('The model provider is unavailable.');
    expect(stored?.article.leaseOwner).toBeUndefined();
    expect(stored?.sweep?.at).toBe(
      new Date(fakes.clock().getTime() + 30_000 + RETRY_DELIVERY_GRACE_MS).toISOString(),
    );
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10 - PRICE);
  });

  it('backs off 30, 60, 120 s and fails the last attempt with exactly one refund', async () => {
    const { fakes, accountId, article } = await queued();
    fakes.models.failNext(MAX_GENERATION_ATTEMPTS);
    const outcomes: string[] = [];
    const delays: (number | undefined)[] = [];
    for (let attempt = 0; attempt < MAX_GENERATION_ATTEMPTS; attempt++) {
      const result = await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
      outcomes.push(result.outcome);
      delays.push(result.retryInSeconds);
    }

    expect(outcomes).toEqual(['retry_scheduled', 'retry_scheduled', 'retry_scheduled', 'failed']);
    expect(delays).toEqual([30, 60, 120, undefined]);
    expect(fakes.articles.row(article)?.article).toMatchObject({ state: 'error', creditsCharged: 0 });
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10);

    // Redeliveries and the sweeper find it final: nothing is refunded twice.
    expect((await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery())).outcome).toBe(
      'skipped',
    );
    fakes.time.advance(24 * 3600_000);
    await recoverStalledGenerations(sweepDeps(fakes));
    expect(await fakes.articles.failGeneration(article, 'again', fakes.clock().toISOString())).toBe(false);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10);
    // A failed article stays in the queue listing (generation_error 1).
    expect((await fakes.articles.listQueued(accountId, 1, 20)).total).toBe(1);
  });

  it('deletes a duplicate delivery while another worker holds the lease, without generating', async () => {
    const { fakes, article } = await queued();
    await fakes.articles.takeLease(
      article,
      'another-worker',
      fakes.clock().toISOString(),
      new Date(fakes.clock().getTime() + LEASE_MS).toISOString(),
      MAX_GENERATION_ATTEMPTS,
    );
    fakes.time.advance(50_000);
    const delivery = new FakeDelivery();

    const result = await generateQueuedArticle(generateDeps(fakes), article, delivery);

    expect(result).toEqual({ outcome: 'duplicate' });
    expect(deliveryKept(result.outcome)).toBe(false);
    expect(delivery.retries).toEqual([]);
    expect(fakes.articles.row(article)?.article).toMatchObject({
      state: 'queued',
      generationAttempts: 1,
      leaseOwner: 'another-worker',
    });
  });

  it('takes over from a worker that died, and fails the article when that was its last attempt', async () => {
    const { fakes, accountId, article } = await queued();
    for (let attempt = 0; attempt < MAX_GENERATION_ATTEMPTS; attempt++) {
      const now = fakes.clock();
      await fakes.articles.takeLease(
        article,
        `dead-${attempt}`,
        now.toISOString(),
        new Date(now.getTime() + LEASE_MS).toISOString(),
        MAX_GENERATION_ATTEMPTS,
      );
      fakes.time.advance(LEASE_MS + 1);
    }

    const result = await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());

    expect(result.outcome).toBe('failed');
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10);
  });

  it('skips articles that are deferred, cancelled or unknown', async () => {
    const { fakes, accountId, article } = await queued(PRICE - 1);
    expect((await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery())).outcome).toBe(
      'skipped',
    );
    const unknown = { accountId, articleUuid: '00000000-0000-4000-8000-000000000000' };
    expect(await generateQueuedArticle(generateDeps(fakes), unknown, new FakeDelivery())).toEqual({
      outcome: 'skipped',
    });
  });
});
