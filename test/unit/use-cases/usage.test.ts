/** The account's balance and usage: what reservations and completions counted. */
import { createArticle } from '../../../functions/core/articles/create-article';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import { MAX_GENERATION_ATTEMPTS } from '../../../functions/core/articles/lifecycle-policy';
import type { ValidationError } from '../../../functions/core/errors';
import { accountUsage, showAccount } from '../../../functions/core/usage';
import { createFakes, FakeDelivery } from '../../support/fakes';
import { articleInput, createDeps, generateDeps, PRICE } from './helpers';

describe('account and usage', () => {
  it('shows credits, the daily limit and today’s starts, failed generations included', async () => {
    const fakes = createFakes('2026-03-01T12:00:00.000Z');
    const accountId = await fakes.account(20, 5);
    const kept = await createArticle(createDeps(fakes), accountId, articleInput());
    const failed = await createArticle(createDeps(fakes), accountId, articleInput());
    await generateQueuedArticle(generateDeps(fakes), kept, new FakeDelivery());
    fakes.models.failNext(MAX_GENERATION_ATTEMPTS);
    for (let n = 0; n < MAX_GENERATION_ATTEMPTS; n++) {
      await generateQueuedArticle(generateDeps(fakes), failed, new FakeDelivery());
    }

    const { data } = await showAccount(fakes, accountId);

    expect(data).toEqual({
      name: 'Test',
      credits: 20 - PRICE,
      daily_limit: 5,
      // The daily limit counts attempts started: the refund gives the credits back, not the slot.
      articles_started_today: 2,
      daily_remaining: 3,
      day_resets_at: '2026-03-02 00:00:00',
    });
  });

  it('counts generated articles and credits per day and website, never failed or cancelled ones', async () => {
    const fakes = createFakes('2026-03-01T12:00:00.000Z');
    const accountId = await fakes.account(100);
    const website = await fakes.website(accountId);
    const linked = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ website_uuid: website.websiteUuid }),
    );
    await generateQueuedArticle(generateDeps(fakes), linked, new FakeDelivery());
    fakes.time.advance(24 * 3600_000);
    const plain = await createArticle(createDeps(fakes), accountId, articleInput({ h2_count: 3 }));
    await generateQueuedArticle(generateDeps(fakes), plain, new FakeDelivery());
    await createArticle(createDeps(fakes), accountId, articleInput());

    const { data } = await accountUsage(fakes, accountId, { from: '2026-02-28', to: '2026-03-02' });

    expect(data).toMatchObject({ articles_generated: 2, credits_used: PRICE + PRICE + 1 });
    expect(data.days).toEqual([
      { date: '2026-02-28', articles_generated: 0, credits_used: 0, websites: [] },
      {
        date: '2026-03-01',
        articles_generated: 1,
        credits_used: PRICE,
        websites: [{ website_uuid: website.websiteUuid, articles_generated: 1, credits_used: PRICE }],
      },
      { date: '2026-03-02', articles_generated: 1, credits_used: PRICE + 1, websites: [] },
    ]);
  });

  it('refuses a range over 366 days', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    await expect(accountUsage(fakes, accountId, { from: '2025-01-01', to: '2026-03-01' })).rejects.toThrow(
      'The range may cover at most 366 days.',
    );
  });

  it('blames from when a from alone makes no range up to today (the default to)', async () => {
    const fakes = createFakes('2026-03-01T12:00:00.000Z');
    const accountId = await fakes.account(0);
    const fieldErrorsOf = (query: Record<string, string>) =>
      accountUsage(fakes, accountId, query).then(
        () => undefined,
        (error: unknown) => (error as ValidationError).fieldErrors,
      );

    expect(await fieldErrorsOf({ from: '2026-03-02' })).toEqual({
      from: ['The from date must not be after today (UTC).'],
    });
    expect(await fieldErrorsOf({ from: '2025-02-28' })).toEqual({
      from: [
        'The range may cover at most 366 days: without a to date, from may be at most 365 days before today.',
      ],
    });
    expect(await fieldErrorsOf({ from: '2025-03-01' })).toBeUndefined();
  });

  it('covers the last days of year 9999 and ends there (the day after is not a four-digit date)', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);

    const { data } = await accountUsage(fakes, accountId, { to: '9999-12-31' });

    expect(data.from).toBe('9999-12-02');
    expect(data.days).toHaveLength(30);
    expect(data.days.at(-1)).toMatchObject({ date: '9999-12-31', articles_generated: 0 });
    const single = await accountUsage(fakes, accountId, { from: '9999-12-31', to: '9999-12-31' });
    expect(single.data.days.map((day) => day.date)).toEqual(['9999-12-31']);
  });

  it('refuses days before 1970 and starts a default range there', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    await expect(accountUsage(fakes, accountId, { from: '1969-12-31', to: '1970-01-05' })).rejects.toThrow(
      'The from may not be before 1970-01-01.',
    );
    await expect(accountUsage(fakes, accountId, { to: '0000-01-01' })).rejects.toThrow(
      'The to may not be before 1970-01-01.',
    );

    const { data } = await accountUsage(fakes, accountId, { to: '1970-01-03' });

    expect(data.days.map((day) => day.date)).toEqual(['1970-01-01', '1970-01-02', '1970-01-03']);
  });
});
