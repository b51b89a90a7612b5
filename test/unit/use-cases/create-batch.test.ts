/** Accepting a batch: rows checked as single creates, one reservation, deferrals, retries, recovery, completion. */
import type { BatchRow } from '../../../functions/core/articles/batch-input';
import { parseBatchRequest } from '../../../functions/core/articles/batch-input';
import { createBatch } from '../../../functions/core/articles/create-batch';
import { acceptedBatchAnswer, showBatch } from '../../../functions/core/articles/read-batches';
import { sweepBatches } from '../../../functions/core/articles/sweep-batches';
import { BatchRowsError, IdempotencyKeyReusedError, ValidationError } from '../../../functions/core/errors';
import { createFakes, type Fakes, sitePost } from '../../support/fakes';
import { PRICE } from './helpers';

const valid = (keyword: string, extra: Record<string, unknown> = {}) => ({
  keyword,
  h2_count: '2',
  ai_model: 'gpt-3.5-turbo',
  language: 'en',
  ...extra,
});
const rows = (fields: Record<string, unknown>[], first = 2): BatchRow[] =>
  fields.map((row, index) => ({ row: first + index, fields: row }));

function batchDeps(fakes: Fakes) {
  const { batches, articles, accounts, websites, categories, queue, clock, profiles, siteIndex } = fakes;
  return { batches, articles, accounts, websites, categories, queue, clock, profiles, siteIndex };
}

describe('createBatch', () => {
  it('reserves every item in one charge, writes them in order and sends each to generation', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);

    const accepted = await createBatch(
      batchDeps(fakes),
      accountId,
      parseBatchRequest({ rows: rows([valid('one'), valid('two'), valid('three')]) }),
    );

    expect(accepted.batch).toMatchObject({ rows: [2, 3, 4], creditsReserved: 3 * PRICE, written: true });
    expect(accepted.articles.map((article) => [article.keyword, article.state])).toEqual([
      ['one', 'queued'],
      ['two', 'queued'],
      ['three', 'queued'],
    ]);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - 3 * PRICE);
    expect(fakes.queue.sent.map((message) => message.articleUuid)).toEqual(
      accepted.articles.map((article) => article.articleUuid),
    );
  });

  it('refuses the batch when any row is bad, naming each one, and changes nothing', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const request = parseBatchRequest({
      rows: rows([valid('one'), valid('two', { h2_count: '0' }), valid(''), valid('four')]),
    });

    const attempt = createBatch(batchDeps(fakes), accountId, request);

    await expect(attempt).rejects.toBeInstanceOf(BatchRowsError);
    const error = (await attempt.catch((caught: unknown) => caught)) as BatchRowsError;
    expect(error.rows.map((rejected) => rejected.row)).toEqual([3, 4]);
    expect(Object.keys(error.fieldErrors)).toEqual(['rows.3.h2_count', 'rows.4.keyword']);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100);
    expect(fakes.batches.batches.size).toBe(0);
  });

  it('with partial accepts the valid rows and keeps the refused ones on the batch', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const request = parseBatchRequest({
      rows: rows([valid('one'), valid('two', { language: 'xx' }), valid('three')]),
      partial: '1',
    });

    const accepted = await createBatch(batchDeps(fakes), accountId, request);

    expect(accepted.batch.rows).toEqual([2, 4]);
    expect(accepted.batch.rejected).toEqual([{ row: 3, errors: { language: [expect.any(String)] } }]);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - 2 * PRICE);
    expect(acceptedBatchAnswer(accepted, 'https://api').info).toContain(
      '; 1 row was refused (see rejected).',
    );
  });

  it('reads partial from the query string or the body, and refuses the two saying different things', () => {
    const request = (source: { partial?: unknown; partialInQuery?: unknown }) =>
      parseBatchRequest({ rows: rows([valid('one')]), ...source });
    expect(request({ partialInQuery: '1' }).partial).toBe(true);
    expect(request({ partial: 'true' }).partial).toBe(true);
    expect(request({ partialInQuery: '1', partial: 'yes' }).partial).toBe(true);
    expect(request({}).partial).toBe(false);
    let refusal: unknown;
    try {
      request({ partialInQuery: '1', partial: '0' });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ValidationError);
    expect(Object.keys((refusal as ValidationError).fieldErrors)).toEqual(['partial']);
  });

  it('advises partial=1 only when it would create something', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const message = (fields: Record<string, unknown>[], partial: boolean) =>
      createBatch(batchDeps(fakes), accountId, parseBatchRequest({ rows: rows(fields), partial })).catch(
        (caught: unknown) => (caught as Error).message,
      );

    expect(await message([valid('')], true)).toBe(
      '1 row is invalid (row 2); nothing was created. No row is valid: correct it.',
    );
    expect(await message([valid(''), valid('', { h2_count: '0' })], false)).toBe(
      '2 rows are invalid (rows 2, 3); nothing was created. No row is valid: correct them.',
    );
    expect(await message([valid('a'), valid('')], false)).toBe(
      '1 row is invalid (row 3); nothing was created. Correct it, or send partial=1 to create the valid rows only.',
    );
  });

  it("refuses a row whose topic the website's index has, and a second row on one topic", async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const website = await fakes.website(accountId);
    await fakes.siteIndex.putState({ websiteUuid: website.websiteUuid, supported: true, postsIndexed: 1 });
    await fakes.siteIndex.upsert(
      website.websiteUuid,
      [sitePost(1, { title: 'Bread', focusKeyword: 'Sourdough' })],
      '2026-01-01T00:00:00.000Z',
    );
    const site = { website_uuid: website.websiteUuid };
    const request = parseBatchRequest({
      rows: rows([
        valid('sourdough', site),
        valid('rye', site),
        valid('RYE', site),
        valid('rye', { ...site, allow_same_topic: '1' }),
      ]),
      partial: true,
    });

    const accepted = await createBatch(batchDeps(fakes), accountId, request);

    expect(accepted.batch.rows).toEqual([3, 5]);
    expect(accepted.batch.rejected.map(({ row, errors }) => [row, Object.keys(errors)])).toEqual([
      [2, ['keyword']],
      [4, ['keyword']],
    ]);
  });

  it('reserves the slots the day has left; the later items wait for the next day, uncharged', async () => {
    const fakes = createFakes('2026-03-01T10:00:00.000Z');
    const accountId = await fakes.account(100, 2);

    const accepted = await createBatch(
      batchDeps(fakes),
      accountId,
      parseBatchRequest({ rows: rows([valid('a'), valid('b'), valid('c')]) }),
    );

    expect(accepted.articles.map((article) => article.state)).toEqual([
      'queued',
      'queued',
      'daily_limit_reached',
    ]);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - 2 * PRICE);
    expect(fakes.queue.sent).toHaveLength(2);
    expect(fakes.articles.row(accepted.articles[2] as never)?.article.startGenerationAt).toBe(
      '2026-03-02T00:00:00.000Z',
    );
  });

  it('short of credits and of daily slots, items wait for credits first, as a single create does', async () => {
    const fakes = createFakes('2026-03-01T10:00:00.000Z');
    const accountId = await fakes.account(PRICE, 1);
    const first = await createBatch(
      batchDeps(fakes),
      accountId,
      parseBatchRequest({ rows: rows([valid('a')]) }),
    );
    expect(first.articles.map((article) => article.state)).toEqual(['queued']);

    const accepted = await createBatch(
      batchDeps(fakes),
      accountId,
      parseBatchRequest({ rows: rows([valid('b'), valid('c')]) }),
    );

    expect(accepted.articles.map((article) => article.state)).toEqual([
      'not_enough_credits',
      'not_enough_credits',
    ]);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(0);
  });

  it('never charges part of a batch: credits short of the items the day allows defer them all', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(3 * PRICE - 1);

    const accepted = await createBatch(
      batchDeps(fakes),
      accountId,
      parseBatchRequest({ rows: rows([valid('a'), valid('b'), valid('c')]) }),
    );

    expect(accepted.articles.every((article) => article.state === 'not_enough_credits')).toBe(true);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(3 * PRICE - 1);
    expect(fakes.queue.sent).toEqual([]);
  });

  it('a copy under the same key finds the batch and charges nothing; another request under it is refused', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const request = parseBatchRequest({ rows: rows([valid('a'), valid('b')]) });
    const key = { batchUuid: '7c9e6679-7425-40de-944b-e07fc1f90ae7', requestHash: 'h1' };

    const first = await createBatch(batchDeps(fakes), accountId, request, key);
    const copy = await createBatch(batchDeps(fakes), accountId, request, key);

    expect(copy.created).toBe(false);
    expect(copy.articles.map((article) => article.articleUuid)).toEqual(
      first.articles.map((article) => article.articleUuid),
    );
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - 2 * PRICE);
    await expect(
      createBatch(batchDeps(fakes), accountId, request, { ...key, requestHash: 'h2' }),
    ).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
  });

  it('a writer that died half-way is finished by the sweeper: every article, one charge', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    fakes.batches.failAfterWrites = 2;

    await expect(
      createBatch(
        batchDeps(fakes),
        accountId,
        parseBatchRequest({ rows: rows([valid('a'), valid('b'), valid('c'), valid('d')]) }),
      ),
    ).rejects.toThrow('the writer died');
    const [row] = [...fakes.batches.batches.values()];
    if (!row) throw new Error('the batch is stored');
    expect((await fakes.batches.items(row.batch)).filter(Boolean)).toHaveLength(2);

    fakes.time.advance(3 * 60_000);
    await sweepBatches({ batches: fakes.batches, clock: fakes.clock });

    expect((await fakes.batches.items(row.batch)).every((item) => item?.state === 'queued')).toBe(true);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100 - 4 * PRICE);
  });

  it('records batch.completed once every item is final, once', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const accepted = await createBatch(
      batchDeps(fakes),
      accountId,
      parseBatchRequest({ rows: rows([valid('a'), valid('b')]) }),
    );
    fakes.time.advance(2 * 60_000);
    expect(await sweepBatches({ batches: fakes.batches, clock: fakes.clock })).toMatchObject({ waiting: 1 });

    for (const article of accepted.articles) {
      const row = fakes.articles.row(article);
      if (row) row.article.state = 'generated';
    }
    fakes.time.advance(2 * 60_000);
    expect(await sweepBatches({ batches: fakes.batches, clock: fakes.clock })).toMatchObject({
      completed: 1,
    });
    fakes.time.advance(2 * 60_000);
    await sweepBatches({ batches: fakes.batches, clock: fakes.clock });
    expect(fakes.batches.completedEvents).toEqual([accepted.batch.batchUuid]);
    const shown = await showBatch(
      { batches: fakes.batches },
      accountId,
      accepted.batch.batchUuid,
      1,
      'https://api',
    );
    expect(shown.data).toMatchObject({ status: 'completed', counts: { generated: 2, queued: 0 } });
  });

  it("refuses, on schedule and before any charge, a calendar that passes a create's latest publish_at, naming the row", async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const { websiteUuid } = await fakes.website(accountId);
    const request = (start: string) =>
      parseBatchRequest({
        rows: rows(['a', 'b', 'c'].map((keyword) => valid(keyword, { website_uuid: websiteUuid }))),
        schedule: { start, every: '1d', at: '09:00', timezone: 'UTC' },
      });

    const refused = await createBatch(batchDeps(fakes), accountId, request('9999-12-30')).catch(
      (caught: unknown) => caught,
    );

    expect((refused as ValidationError).fieldErrors).toEqual({
      schedule: [
        'The schedule would publish row 3 at 9999-12-31 09:00:00 UTC, and a publish_at must be before 9999-12-31T00:00:00Z: start earlier, or send fewer items.',
      ],
    });
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100);
    expect(fakes.batches.batches.size).toBe(0);
    const last = await createBatch(batchDeps(fakes), accountId, request('9999-12-28'));
    expect(last.articles.map((article) => article.publishAt)).toEqual([
      '9999-12-28T09:00:00.000Z',
      '9999-12-29T09:00:00.000Z',
      '9999-12-30T09:00:00.000Z',
    ]);
  });

  it('refuses more than 500 rows and none', () => {
    expect(() => parseBatchRequest({ rows: [] })).toThrow(/at least one row/);
    expect(() => parseBatchRequest({ rows: rows(Array.from({ length: 501 }, () => valid('x'))) })).toThrow(
      /at most 500/,
    );
  });
});

describe("a batch's calendar without a timezone", () => {
  const schedule = { start: '2026-03-28', every: '1d', at: '09:00' };
  const scheduled = (websiteUuids: string[], extra: Record<string, unknown> = {}) =>
    parseBatchRequest({
      rows: rows(websiteUuids.map((uuid, index) => valid(`topic ${index}`, { website_uuid: uuid }))),
      schedule: { ...schedule, ...extra },
    });
  const refusal = async (attempt: Promise<unknown>) =>
    ((await attempt.catch((caught: unknown) => caught)) as { fieldErrors?: Record<string, string[]> })
      .fieldErrors?.['schedule.timezone'];

  it('uses the zone the website reported, and says it on the batch; an explicit timezone wins', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const { websiteUuid } = await fakes.website(accountId, { timezone: 'Europe/Paris' });

    const accepted = await createBatch(batchDeps(fakes), accountId, scheduled([websiteUuid, websiteUuid]));

    expect(accepted.batch.schedule?.timezone).toBe('Europe/Paris');
    // 09:00 Paris, before and after the spring change.
    expect(accepted.articles.map((article) => article.publishAt)).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
    ]);

    const mine = await createBatch(
      batchDeps(fakes),
      accountId,
      parseBatchRequest({
        rows: rows([valid('explicit', { website_uuid: websiteUuid })]),
        schedule: { ...schedule, timezone: 'America/New_York' },
      }),
    );
    expect(mine.batch.schedule?.timezone).toBe('America/New_York');
    expect(mine.articles[0]?.publishAt).toBe('2026-03-28T13:00:00.000Z');
  });

  it('computes with an offset the website reported', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const { websiteUuid } = await fakes.website(accountId, { timezone: '+05:30' });

    const accepted = await createBatch(batchDeps(fakes), accountId, scheduled([websiteUuid]));

    expect(accepted.batch.schedule?.timezone).toBe('+05:30');
    expect(accepted.articles[0]?.publishAt).toBe('2026-03-28T03:30:00.000Z');
  });

  it('refuses, on schedule.timezone and before any charge, a website that has not reported its zone', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const never = await fakes.website(accountId);
    const invalid = await fakes.website(accountId, { timezone: null });

    for (const website of [never, invalid]) {
      const message = await refusal(
        createBatch(batchDeps(fakes), accountId, scheduled([website.websiteUuid])),
      );
      expect(message).toEqual([expect.stringMatching(/has not reported its time zone.*update the plugin/)]);
    }
    expect((await fakes.accounts.get(accountId))?.credits).toBe(100);
    expect(fakes.batches.batches.size).toBe(0);
  });

  it('refuses items going to websites in different zones, and takes one zone shared by several websites', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(100);
    const paris = await fakes.website(accountId, { timezone: 'Europe/Paris' });
    const alsoParis = await fakes.website(accountId, { timezone: 'Europe/Paris' });
    const newYork = await fakes.website(accountId, { timezone: 'America/New_York' });

    const message = await refusal(
      createBatch(batchDeps(fakes), accountId, scheduled([paris.websiteUuid, newYork.websiteUuid])),
    );
    expect(message).toEqual([
      expect.stringMatching(/different time zones \(Europe\/Paris, America\/New_York\)/),
    ]);

    const accepted = await createBatch(
      batchDeps(fakes),
      accountId,
      scheduled([paris.websiteUuid, alsoParis.websiteUuid]),
    );
    expect(accepted.batch.schedule?.timezone).toBe('Europe/Paris');
  });
});
