/** Queueing an article: credits and a daily slot reserved together, or the article deferred. */
import { createArticle } from '../../../functions/core/articles/create-article';
import { createArticleSchema } from '../../../functions/core/articles/create-article-input';
import { SEND_GRACE_MS, WAITING_RECHECK_MS } from '../../../functions/core/articles/lifecycle-policy';
import { recoverStalledGenerations } from '../../../functions/core/articles/sweep-articles';
import { IdempotencyKeyReusedError, ValidationError } from '../../../functions/core/errors';
import { createFakes } from '../../support/fakes';
import { articleInput, createDeps, PRICE, sweepDeps } from './helpers';

describe('createArticle', () => {
  it('charges the price, counts the day and sends the article to generation', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);

    const article = await createArticle(createDeps(fakes), accountId, articleInput());

    expect(article).toMatchObject({ state: 'queued', estimatedCredits: PRICE });
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10 - PRICE);
    expect(await fakes.usage.startedOn(accountId, '2026-03-01')).toBe(1);
    expect(fakes.queue.sent).toEqual([{ accountId, articleUuid: article.articleUuid }]);
    const stored = fakes.articles.row(article);
    expect(stored?.article).toMatchObject({ state: 'queued', creditsCharged: PRICE, generationAttempts: 0 });
    // Sent: the sweeper leaves it alone for as long as the queue keeps messages.
    expect(stored?.sweep).toEqual({
      kind: 'generation',
      at: new Date(fakes.clock().getTime() + WAITING_RECHECK_MS).toISOString(),
    });
  });

  it('defers an article the credits do not cover, charging nothing and sending nothing', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(PRICE - 1);

    const article = await createArticle(createDeps(fakes), accountId, articleInput());

    expect(article.state).toBe('not_enough_credits');
    expect((await fakes.accounts.get(accountId))?.credits).toBe(PRICE - 1);
    expect(await fakes.usage.startedOn(accountId, '2026-03-01')).toBe(0);
    expect(fakes.queue.sent).toEqual([]);
    expect(fakes.articles.row(article)).toMatchObject({
      article: { state: 'not_enough_credits', creditsCharged: 0 },
      queued: true,
      sweep: { kind: 'reservation' },
    });
  });

  it('defers to the next UTC midnight once the daily limit is reached, charging nothing', async () => {
    const fakes = createFakes('2026-03-01T22:30:00.000Z');
    const accountId = await fakes.account(100, 2);
    const deps = createDeps(fakes);
    await createArticle(deps, accountId, articleInput());
    await createArticle(deps, accountId, articleInput());

    const third = await createArticle(deps, accountId, articleInput());

    expect(third.state).toBe('daily_limit_reached');
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - 2 * PRICE);
    expect(await fakes.usage.startedOn(accountId, '2026-03-01')).toBe(2);
    expect(fakes.articles.row(third)).toMatchObject({
      article: { startGenerationAt: '2026-03-02T00:00:00.000Z', creditsCharged: 0 },
      sweep: { kind: 'reservation', at: '2026-03-02T00:00:00.000Z' },
    });
  });

  it('charges once when the same article (Idempotency-Key uuid) is created twice', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const keyed = { articleUuid: '0d9c2f1e-6c1b-4a55-9a43-3d2f3c1b0a01', requestHash: 'hash-of-request' };

    const first = await createArticle(createDeps(fakes), accountId, articleInput(), keyed);
    const again = await createArticle(createDeps(fakes), accountId, articleInput(), keyed);

    expect(again.state).toBe(first.state);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10 - PRICE);
    expect(await fakes.usage.startedOn(accountId, '2026-03-01')).toBe(1);
  });

  it('refuses a different request under the same Idempotency-Key uuid, and changes nothing', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const articleUuid = '0d9c2f1e-6c1b-4a55-9a43-3d2f3c1b0a02';
    await createArticle(createDeps(fakes), accountId, articleInput(), { articleUuid, requestHash: 'first' });

    await expect(
      createArticle(createDeps(fakes), accountId, articleInput({ keyword: 'other' }), {
        articleUuid,
        requestHash: 'second',
      }),
    ).rejects.toThrow(IdempotencyKeyReusedError);
    expect(fakes.articles.row({ accountId, articleUuid })?.article.keyword).toBe(articleInput().keyword);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10 - PRICE);
    expect(await fakes.usage.startedOn(accountId, '2026-03-01')).toBe(1);
  });

  it('keeps the reservation when the queue is down; the next sweep sends the message', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    fakes.queue.failNext();
    const failures: unknown[] = [];

    const article = await createArticle(
      { ...createDeps(fakes), onEnqueueFailure: (error) => failures.push(error) },
      accountId,
      articleInput(),
    );

    expect(article.state).toBe('queued');
    expect(failures).toHaveLength(1);
    expect(fakes.queue.sent).toEqual([]);
    fakes.time.advance(SEND_GRACE_MS);
    expect(await recoverStalledGenerations(sweepDeps(fakes))).toEqual({ resent: 1, failed: 0, leased: 0 });
    expect(fakes.queue.sent).toEqual([{ accountId, articleUuid: article.articleUuid }]);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10 - PRICE);
  });

  it('refuses a website of another account and a category of another website', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const other = await fakes.account(10);
    const foreign = await fakes.website(other);
    const own = await fakes.website(accountId);
    await fakes.categories.putAll([
      {
        websiteUuid: foreign.websiteUuid,
        categoryUuid: '7b0c9b4e-1d2a-4f3b-8c5d-6e7f8a9b0c1d',
        cmsId: '3',
        name: 'x',
        slug: 'x',
      },
    ]);

    await expect(
      createArticle(createDeps(fakes), accountId, articleInput({ website_uuid: foreign.websiteUuid })),
    ).rejects.toThrow(ValidationError);
    await expect(
      createArticle(
        createDeps(fakes),
        accountId,
        articleInput({
          website_uuid: own.websiteUuid,
          category_uuid: '7b0c9b4e-1d2a-4f3b-8c5d-6e7f8a9b0c1d',
        }),
      ),
    ).rejects.toThrow('The selected category does not belong to the website.');
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10);
  });

  it('refuses a publish_at no site can store (its local date would fall past year 9999)', () => {
    const website_uuid = '7b0c9b4e-1d2a-4f3b-8c5d-6e7f8a9b0c1d';
    expect(() => articleInput({ website_uuid, publish_at: '9999-12-31T23:59:59Z' })).toThrow(
      'The publish_at must be before 9999-12-31T00:00:00Z.',
    );
    expect(articleInput({ website_uuid, publish_at: '9999-12-30T23:59:59Z' }).publish_at).toBe(
      '9999-12-30T23:59:59Z',
    );
  });

  it.each(['tomorrow', '2026-12-01T09:30:00+25:00', '1795737600'])(
    'answers a publish_at that is no date-time (%s) with the one message that says so',
    (publish_at) => {
      const result = createArticleSchema().safeParse({
        keyword: 'bread',
        h2_count: 2,
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        website_uuid: '7b0c9b4e-1d2a-4f3b-8c5d-6e7f8a9b0c1d',
        publish_at,
      });
      expect(result.error?.issues.map((issue) => issue.message)).toEqual([
        'The publish_at must be an ISO 8601 date-time, like 2026-12-01T09:30:00.000Z.',
      ]);
    },
  );
});
