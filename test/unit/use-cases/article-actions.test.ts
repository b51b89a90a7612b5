/** A client's cancel and retry: refunds exactly once, re-reservations like a new article. */
import { cancelArticle, retryArticle } from '../../../functions/core/articles/article-actions';
import { createArticle } from '../../../functions/core/articles/create-article';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import { MAX_GENERATION_ATTEMPTS, PUBLISH_GRACE_MS } from '../../../functions/core/articles/lifecycle-policy';
import { ConflictError } from '../../../functions/core/errors';
import { publishArticle } from '../../../functions/core/publishing/publish-article';
import { CmsError } from '../../../functions/core/websites/cms-client';
import { createFakes, FakeDelivery } from '../../support/fakes';
import { actionDeps, articleInput, createDeps, generateDeps, PRICE, publishDeps } from './helpers';

describe('cancelArticle', () => {
  it('refunds a queued article once; a second cancel is a 409 and refunds nothing', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());

    const shown = await cancelArticle(actionDeps(fakes), accountId, article.articleUuid);

    expect(shown.status).toBe('cancelled');
    expect(shown.data).toMatchObject({ start_generation_at: null });
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10);
    await expect(cancelArticle(actionDeps(fakes), accountId, article.articleUuid)).rejects.toThrow(
      'Only an article whose generation has not started can be cancelled; this article was cancelled.',
    );
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10);
    // Out of the queue listing.
    expect((await fakes.articles.listQueued(accountId, 1, 20)).total).toBe(0);
  });

  it('shows no publication for a cancelled article linked to a website: nothing will be published', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId);
    const article = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ website_uuid: website.websiteUuid }),
    );

    const shown = await cancelArticle(actionDeps(fakes), accountId, article.articleUuid);

    expect(shown.status).toBe('cancelled');
    expect(shown.data).toMatchObject({ website: { uuid: website.websiteUuid }, publication: null });
  });

  it('cancels a deferred article without a refund (it holds nothing)', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(1);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());

    await cancelArticle(actionDeps(fakes), accountId, article.articleUuid);

    expect((await fakes.accounts.get(accountId))?.credits).toBe(1);
    expect(fakes.articles.row(article)?.sweep).toBeUndefined();
  });

  it('refuses an article whose generation started, and keeps its credits held', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());
    fakes.models.failNext();
    await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());

    await expect(cancelArticle(actionDeps(fakes), accountId, article.articleUuid)).rejects.toThrow(
      'this article is being generated.',
    );
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10 - PRICE);
  });

  it('answers 404 for another account’s article and for a malformed uuid', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const other = await fakes.account(10);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());
    await expect(cancelArticle(actionDeps(fakes), other, article.articleUuid)).rejects.toThrow('not found');
    await expect(cancelArticle(actionDeps(fakes), accountId, 'nope')).rejects.toThrow('not found');
  });
});

describe('retryArticle', () => {
  async function failedArticle(credits: number) {
    const fakes = createFakes();
    const accountId = await fakes.account(credits);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());
    fakes.models.failNext(MAX_GENERATION_ATTEMPTS);
    for (let attempt = 0; attempt < MAX_GENERATION_ATTEMPTS; attempt++) {
      await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
    }
    return { fakes, accountId, article };
  }

  it('reserves a failed generation again and sends it, with its attempts reset', async () => {
    const { fakes, accountId, article } = await failedArticle(10);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10);
    fakes.queue.sent.length = 0;

    const shown = await retryArticle(actionDeps(fakes), accountId, article.articleUuid);

    expect(shown.status).toBe('in_progress');
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10 - PRICE);
    expect(fakes.articles.row(article)?.article).toMatchObject({ state: 'queued', generationAttempts: 0 });
    expect(fakes.queue.sent).toEqual([{ accountId, articleUuid: article.articleUuid }]);
  });

  it('two retries at once: one reservation and one charge; the other 409 says what the article is now', async () => {
    const { fakes, accountId, article } = await failedArticle(10);

    const outcomes = await Promise.allSettled([
      retryArticle(actionDeps(fakes), accountId, article.articleUuid),
      retryArticle(actionDeps(fakes), accountId, article.articleUuid),
    ]);

    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ConflictError);
    expect(refused.reason.message).toMatch(/this article is waiting for generation\.$/);
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10 - PRICE);
  });

  it('a retry that waits for the daily limit starts with its attempts reset, and can be cancelled', async () => {
    const { fakes, accountId, article } = await failedArticle(10);
    const account = fakes.tables.accounts.get(accountId);
    if (account) account.dailyLimit = 1; // the failed generation took today's only slot

    await retryArticle(actionDeps(fakes), accountId, article.articleUuid);
    expect(fakes.articles.row(article)?.article).toMatchObject({
      state: 'daily_limit_reached',
      generationAttempts: 0,
    });

    const shown = await cancelArticle(actionDeps(fakes), accountId, article.articleUuid);
    expect(shown.status).toBe('cancelled');
    expect((await fakes.accounts.get(accountId))?.credits).toBe(10);
  });

  it('defers the retry like a new article when the credits are short', async () => {
    const { fakes, accountId, article } = await failedArticle(PRICE);
    const account = fakes.tables.accounts.get(accountId);
    if (account) account.credits = PRICE - 1;
    fakes.queue.sent.length = 0;

    await retryArticle(actionDeps(fakes), accountId, article.articleUuid);

    expect(fakes.articles.row(article)?.article.state).toBe('not_enough_credits');
    expect((await fakes.accounts.get(accountId))?.credits).toBe(PRICE - 1);
    expect(fakes.queue.sent).toEqual([]);
  });

  /** An article generated for a website, not yet published. */
  async function generatedForWebsite() {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId);
    const article = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ website_uuid: website.websiteUuid }),
    );
    await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
    return { fakes, accountId, website, article };
  }

  it('makes a failed publication pending again and sends it to the worker', async () => {
    const { fakes, accountId, article } = await generatedForWebsite();
    fakes.cms.failWith(new CmsError('invalid_request', 'Bad post', 400, 'rest_invalid_param'));
    expect(await publishArticle(publishDeps(fakes), article)).toBe('failed');
    fakes.queue.sent.length = 0;

    await retryArticle(actionDeps(fakes), accountId, article.articleUuid);

    const row = fakes.articles.row(article);
    expect(row?.article).toMatchObject({ publishState: 'pending', publishAttempts: 0 });
    // The old failure is gone, and the sweeper leaves the publication to the worker for the grace
    // period (both sending at once made two requests to the site).
    expect(row?.article.publishError).toBeUndefined();
    const grace = new Date(fakes.time.clock().getTime() + PUBLISH_GRACE_MS).toISOString();
    expect(row?.sweep).toEqual({ kind: 'publication', at: grace });
    expect(fakes.queue.sent).toEqual([{ accountId, articleUuid: article.articleUuid }]);
    expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
  });

  it('refuses with a 409 a failed publication whose website was deleted, changing nothing', async () => {
    const { fakes, accountId, website, article } = await generatedForWebsite();
    await fakes.websites.delete(accountId, website.websiteUuid);
    expect(await publishArticle(publishDeps(fakes), article)).toBe('website_gone');
    expect(fakes.articles.row(article)?.article.publishState).toBe('failed');
    const before = fakes.articles.row(article)?.article;
    fakes.queue.sent.length = 0;

    await expect(retryArticle(actionDeps(fakes), accountId, article.articleUuid)).rejects.toThrow(
      'its website was deleted',
    );
    expect(fakes.articles.row(article)?.article).toEqual(before);
    expect(fakes.queue.sent).toEqual([]);
  });

  it('refuses anything else with a 409', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const article = await createArticle(createDeps(fakes), accountId, articleInput());
    await expect(retryArticle(actionDeps(fakes), accountId, article.articleUuid)).rejects.toThrow(
      ConflictError,
    );
    await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
    await expect(retryArticle(actionDeps(fakes), accountId, article.articleUuid)).rejects.toThrow(
      'this article is generated.',
    );
  });
});
