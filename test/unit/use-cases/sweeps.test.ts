/** The sweeper's article work: deferred reservations, lost messages, dead workers. */
import { MAX_CREDITS } from '../../../functions/core/accounts';
import { createArticle } from '../../../functions/core/articles/create-article';
import {
  LEASE_MS,
  MAX_GENERATION_ATTEMPTS,
  SEND_GRACE_MS,
  WAITING_RECHECK_MS,
} from '../../../functions/core/articles/lifecycle-policy';
import { CREDIT_RETRY_MS } from '../../../functions/core/articles/reservation-policy';
import {
  makeDeferralsDue,
  recoverStalledGenerations,
  retryDeferredReservations,
} from '../../../functions/core/articles/sweep-articles';
import { createFakes } from '../../support/fakes';
import { articleInput, createDeps, PRICE, sweepDeps } from './helpers';

describe('retryDeferredReservations', () => {
  it('reserves articles waiting for credits once credits are added, oldest first', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    const first = await createArticle(createDeps(fakes), accountId, articleInput());
    fakes.time.advance(1000);
    const second = await createArticle(createDeps(fakes), accountId, articleInput());
    expect(await retryDeferredReservations(sweepDeps(fakes))).toEqual({
      reserved: 0,
      not_enough_credits: 0,
      daily_limit_reached: 0,
    });

    await fakes.accounts.addCredits(accountId, PRICE, MAX_CREDITS);
    expect(await makeDeferralsDue(fakes, accountId, 'not_enough_credits')).toBe(2);
    const counts = await retryDeferredReservations(sweepDeps(fakes));

    expect(counts).toEqual({ reserved: 1, not_enough_credits: 1, daily_limit_reached: 0 });
    expect(fakes.articles.row(first)?.article).toMatchObject({ state: 'queued', creditsCharged: PRICE });
    expect(fakes.articles.row(second)?.article).toMatchObject({
      state: 'not_enough_credits',
      creditsCharged: 0,
    });
    expect(fakes.articles.row(second)?.sweep?.at).toBe(
      new Date(fakes.clock().getTime() + CREDIT_RETRY_MS).toISOString(),
    );
    expect(fakes.queue.sent).toEqual([{ accountId, articleUuid: first.articleUuid }]);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(0);
  });

  it('starts articles held by the daily limit on the next UTC day', async () => {
    const fakes = createFakes('2026-03-01T23:00:00.000Z');
    const accountId = await fakes.account(100, 1);
    await createArticle(createDeps(fakes), accountId, articleInput());
    const held = await createArticle(createDeps(fakes), accountId, articleInput());
    expect(held.state).toBe('daily_limit_reached');

    fakes.time.set('2026-03-02T00:00:00.000Z');
    expect(await retryDeferredReservations(sweepDeps(fakes))).toMatchObject({ reserved: 1 });
    expect(await fakes.usage.startedOn(accountId, '2026-03-02')).toBe(1);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - 2 * PRICE);
  });
});

describe('recoverStalledGenerations', () => {
  it('leaves an article waiting in the queue alone until the queue could have lost its message', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    await createArticle(createDeps(fakes), accountId, articleInput());
    fakes.time.advance(SEND_GRACE_MS + 1);
    expect(await recoverStalledGenerations(sweepDeps(fakes))).toEqual({ resent: 0, failed: 0, leased: 0 });
    fakes.time.advance(WAITING_RECHECK_MS);
    expect(await recoverStalledGenerations(sweepDeps(fakes))).toEqual({ resent: 1, failed: 0, leased: 0 });
    expect(fakes.queue.sent).toHaveLength(2);
  });

  it('sends again the article of a worker that died, and looks again only after the queue retention', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());
    const now = fakes.clock();
    await fakes.articles.takeLease(
      article,
      'dead',
      now.toISOString(),
      new Date(now.getTime() + LEASE_MS).toISOString(),
      MAX_GENERATION_ATTEMPTS,
    );
    fakes.time.advance(LEASE_MS + 1);

    expect(await recoverStalledGenerations(sweepDeps(fakes))).toEqual({ resent: 1, failed: 0, leased: 0 });
    expect(fakes.articles.row(article)).toMatchObject({
      article: { resends: 1 },
      sweep: { at: new Date(fakes.clock().getTime() + WAITING_RECHECK_MS).toISOString() },
    });
  });

  it('postpones an article whose lease was renewed since it was listed', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());
    const now = fakes.clock();
    const until = new Date(now.getTime() + LEASE_MS).toISOString();
    await fakes.articles.takeLease(article, 'alive', now.toISOString(), until, MAX_GENERATION_ATTEMPTS);
    // The sweep index says due (e.g. listed before a renewal); the lease says alive.
    const row = fakes.articles.row(article);
    if (row?.sweep) row.sweep.at = now.toISOString();

    expect(await recoverStalledGenerations(sweepDeps(fakes))).toEqual({ resent: 0, failed: 0, leased: 1 });
    expect(row?.sweep?.at).toBe(until);
  });

  it('fails and refunds, once, an article whose last attempt’s worker died', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());
    for (let attempt = 0; attempt < MAX_GENERATION_ATTEMPTS; attempt++) {
      const now = fakes.clock();
      const until = new Date(now.getTime() + LEASE_MS).toISOString();
      await fakes.articles.takeLease(
        article,
        `dead-${attempt}`,
        now.toISOString(),
        until,
        MAX_GENERATION_ATTEMPTS,
      );
      await fakes.articles.releaseLease(article, `dead-${attempt}`, 'Timeout', now.toISOString());
    }
    fakes.time.advance(LEASE_MS + 1);

    expect(await recoverStalledGenerations(sweepDeps(fakes))).toEqual({ resent: 0, failed: 1, leased: 0 });
    expect(fakes.articles.row(article)?.article).toMatchObject({
      state: 'error',
      lastError: `Generation did not finish after ${MAX_GENERATION_ATTEMPTS} attempts (last error: Timeout).`,
    });
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10);
    expect(await recoverStalledGenerations(sweepDeps(fakes))).toEqual({ resent: 0, failed: 0, leased: 0 });
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10);
  });
});
