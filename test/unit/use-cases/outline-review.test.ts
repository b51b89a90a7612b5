/** Outline review: held after the outline, approved with the client's headings, cancelled or expired with one refund. */
import { cancelArticle } from '../../../functions/core/articles/article-actions';
import { createArticle } from '../../../functions/core/articles/create-article';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import { approveOutline, expireOutlines } from '../../../functions/core/articles/outline-review';
import { OUTLINE_REVIEW_DAYS } from '../../../functions/core/articles/outline-rules';
import { showArticle } from '../../../functions/core/articles/read-articles';
import { ConflictError, ValidationError } from '../../../functions/core/errors';
import { createFakes, FakeDelivery, type Fakes } from '../../support/fakes';
import { articleInput, createDeps, generateDeps } from './helpers';

const DAY = 24 * 3600_000;
const CREDITS = 10;
/** gpt-3.5-turbo with 3 H2s. */
const PRICE = 4;

const approveDeps = (fakes: Fakes) => ({ ...createDeps(fakes), publications: fakes.publications });

async function reviewed(fields: Record<string, unknown> = {}) {
  const fakes = createFakes();
  const accountId = await fakes.account(CREDITS);
  const article = await createArticle(
    createDeps(fakes),
    accountId,
    articleInput({ h2_count: 3, outline_review: '1', ...fields }),
  );
  return { fakes, accountId, article };
}

async function outlineReady(fields: Record<string, unknown> = {}) {
  const setup = await reviewed(fields);
  const result = await generateQueuedArticle(generateDeps(setup.fakes), setup.article, new FakeDelivery());
  expect(result.outcome).toBe('outline_ready');
  return setup;
}

const credits = async (fakes: Fakes, accountId: string) => (await fakes.accounts.get(accountId))?.credits;
const approval = { title: 'My own title', headings: ['First, edited', 'Second, edited', 'Third, edited'] };

describe('an article created with outline_review', () => {
  it('is charged as usual and stops after its outline in outline_ready, with its event', async () => {
    const { fakes, accountId, article } = await outlineReady();
    expect(await credits(fakes, accountId)).toBe(CREDITS - PRICE);
    const stored = await fakes.articles.get(accountId, article.articleUuid);
    expect(stored).toMatchObject({ state: 'outline_ready', outlineReview: true, creditsCharged: PRICE });
    expect(stored?.outline?.headings).toHaveLength(3);
    expect(stored?.content).toBeUndefined();
    expect(stored?.leaseOwner).toBeUndefined();
    expect(fakes.articles.outlineEvents).toEqual([article.articleUuid]);
    // Still in the queue listing; a second delivery does nothing.
    expect(fakes.articles.row(article)?.queued).toBe(true);
    expect((await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery())).outcome).toBe(
      'skipped',
    );
  });

  it('is shown with its outline and the outline_ready status', async () => {
    const { fakes, accountId, article } = await outlineReady();
    const shown = await showArticle(createDeps(fakes), accountId, article.articleUuid);
    expect(shown.status).toBe('outline_ready');
    expect(shown.data).toMatchObject({
      outline_review: 1,
      outline: {
        title: expect.any(String),
        headings: expect.arrayContaining([expect.any(String)]),
        approved: 0,
        expires_at: '2026-03-08 10:00:00',
      },
    });
  });

  it('once approved, is generated with exactly the approved title and headings', async () => {
    const { fakes, accountId, article } = await outlineReady();
    const answer = await approveOutline(approveDeps(fakes), accountId, article.articleUuid, approval);
    expect(answer.status).toBe('in_progress');
    expect(fakes.queue.sent.map((message) => message.articleUuid)).toEqual([
      article.articleUuid,
      article.articleUuid,
    ]);

    const result = await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
    expect(result.outcome).toBe('generated');
    const generated = await fakes.articles.get(accountId, article.articleUuid);
    expect(generated?.generatedTitle).toBe('My own title');
    const h2s = [...(generated?.content ?? '').matchAll(/<h2>(.*?)<\/h2>/g)].map((match) => match[1]);
    expect(h2s).toEqual(approval.headings);
    // Charged once, nothing refunded.
    expect(await credits(fakes, accountId)).toBe(CREDITS - PRICE);
  });

  it('takes headings one per line or as repeated fields, as plain text', async () => {
    const { fakes, accountId, article } = await outlineReady();
    await approveOutline(approveDeps(fakes), accountId, article.articleUuid, {
      title: '<b>Bold</b> &amp; plain',
      headings: 'One\n\n<em>Two</em>\r\nThree',
    });
    expect((await fakes.articles.get(accountId, article.articleUuid))?.outline).toEqual({
      title: 'Bold & plain',
      headings: ['One', 'Two', 'Three'],
    });
  });

  it('refuses a wrong number of headings, an empty one or a banned phrase, changing nothing', async () => {
    const { fakes, accountId, article } = await outlineReady();
    const refusal = async (fields: Record<string, unknown>) => {
      const error = await approveOutline(approveDeps(fakes), accountId, article.articleUuid, fields).catch(
        (caught) => caught,
      );
      expect(error).toBeInstanceOf(ValidationError);
      return Object.keys((error as ValidationError).fieldErrors);
    };
    expect(await refusal({ title: 'T', headings: ['a', 'b'] })).toEqual(['headings']);
    expect(await refusal({ title: 'T', headings: ['a', 'b', 'c', 'd'] })).toEqual(['headings']);
    expect(await refusal({ title: 'T', headings: ['a', '<b></b>', 'c'] })).toEqual(['headings']);
    expect(await refusal({ title: '', headings: ['a', 'b', 'c'] })).toEqual(['title']);
    expect(await refusal({ title: 'T', headings: 42 })).toEqual(['headings']);
    expect((await fakes.articles.get(accountId, article.articleUuid))?.state).toBe('outline_ready');
  });

  it('refuses a title or heading with a banned phrase of its website profile', async () => {
    const { fakes, accountId, article } = await reviewed();
    // As copied from the website's profile at create.
    const row = fakes.articles.row(article);
    if (row) row.article.siteProfile = { bannedPhrases: ['game changer'] };
    await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
    await expect(
      approveOutline(approveDeps(fakes), accountId, article.articleUuid, {
        title: 'A Game Changer',
        headings: ['a', 'b', 'the game changer'],
      }),
    ).rejects.toMatchObject({ fieldErrors: { title: [expect.any(String)], headings: [expect.any(String)] } });
  });

  it('answers the same approval sent twice with the article; another one is a 409', async () => {
    const { fakes, accountId, article } = await outlineReady();
    await approveOutline(approveDeps(fakes), accountId, article.articleUuid, approval);
    const again = await approveOutline(approveDeps(fakes), accountId, article.articleUuid, approval);
    expect(again.data.uuid).toBe(article.articleUuid);
    await expect(
      approveOutline(approveDeps(fakes), accountId, article.articleUuid, { ...approval, title: 'Other' }),
    ).rejects.toThrow(ConflictError);
  });

  it('cannot be approved before its outline is written, nor when created without outline_review', async () => {
    const { fakes, accountId, article } = await reviewed();
    await expect(
      approveOutline(approveDeps(fakes), accountId, article.articleUuid, approval),
    ).rejects.toThrow(ConflictError);
    const plain = await createArticle(createDeps(fakes), accountId, articleInput({ h2_count: 3 }));
    await expect(approveOutline(approveDeps(fakes), accountId, plain.articleUuid, approval)).rejects.toThrow(
      'was not created with outline_review',
    );
  });

  it('is refunded once when cancelled in outline_ready, and cannot be approved after', async () => {
    const { fakes, accountId, article } = await outlineReady();
    const cancelled = await cancelArticle(createDeps(fakes), accountId, article.articleUuid);
    expect(cancelled.status).toBe('cancelled');
    expect(await credits(fakes, accountId)).toBe(CREDITS);
    await expect(cancelArticle(createDeps(fakes), accountId, article.articleUuid)).rejects.toThrow(
      ConflictError,
    );
    await expect(
      approveOutline(approveDeps(fakes), accountId, article.articleUuid, approval),
    ).rejects.toThrow(ConflictError);
    expect(await credits(fakes, accountId)).toBe(CREDITS);
  });

  it('expires after 7 days: cancelled and refunded once by the sweeper, not before', async () => {
    const { fakes, accountId, article } = await outlineReady();
    fakes.time.advance(OUTLINE_REVIEW_DAYS * DAY - 1000);
    expect(await expireOutlines(fakes)).toEqual({ expired: 0 });
    fakes.time.advance(2000);
    expect(await expireOutlines(fakes)).toEqual({ expired: 1 });
    expect(await expireOutlines(fakes)).toEqual({ expired: 0 });
    expect(await fakes.articles.get(accountId, article.articleUuid)).toMatchObject({
      state: 'cancelled',
      cancelReason: 'outline_expired',
      creditsCharged: 0,
    });
    expect(await credits(fakes, accountId)).toBe(CREDITS);
    await expect(
      approveOutline(approveDeps(fakes), accountId, article.articleUuid, approval),
    ).rejects.toThrow(ConflictError);
  });
});

describe('approve, cancel and expiry racing', () => {
  const moves = ['approve', 'cancel', 'expire'] as const;
  const orders = moves.flatMap((a) =>
    moves.filter((b) => b !== a).map((b) => [a, b, moves.find((c) => c !== a && c !== b) ?? a] as const),
  );

  it.each(orders)(
    '%s, %s, %s at once: one wins; refunded at most once, never both generated and refunded',
    async (...order) => {
      const { fakes, accountId, article } = await outlineReady();
      fakes.time.advance(OUTLINE_REVIEW_DAYS * DAY + 1000);
      const run = {
        approve: () => approveOutline(approveDeps(fakes), accountId, article.articleUuid, approval),
        cancel: () => cancelArticle(createDeps(fakes), accountId, article.articleUuid),
        expire: () => expireOutlines(fakes),
      };
      await Promise.allSettled(order.map((move) => run[move]()));
      // Then the worker gets whatever delivery is there.
      const generation = await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());

      const stored = await fakes.articles.get(accountId, article.articleUuid);
      const refunded = (await credits(fakes, accountId)) === CREDITS;
      const charged = (await credits(fakes, accountId)) === CREDITS - PRICE;
      expect(refunded || charged).toBe(true);
      if (stored?.state === 'generated') {
        expect(charged).toBe(true);
        expect(generation.outcome).toBe('generated');
      } else {
        expect(stored?.state).toBe('cancelled');
        expect(refunded).toBe(true);
        expect(generation.outcome).toBe('skipped');
      }
    },
  );

  it('a cancel after the approval, before generation starts, refunds once and the worker skips it', async () => {
    const { fakes, accountId, article } = await outlineReady();
    await approveOutline(approveDeps(fakes), accountId, article.articleUuid, approval);
    await cancelArticle(createDeps(fakes), accountId, article.articleUuid);
    expect((await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery())).outcome).toBe(
      'skipped',
    );
    expect(await credits(fakes, accountId)).toBe(CREDITS);
    fakes.time.advance(OUTLINE_REVIEW_DAYS * DAY + 1000);
    expect(await expireOutlines(fakes)).toEqual({ expired: 0 });
    expect(await credits(fakes, accountId)).toBe(CREDITS);
  });
});
