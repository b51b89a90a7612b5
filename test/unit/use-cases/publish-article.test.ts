/** Publishing: one post per article whatever the retries, backoff, and a final failure. */
import { retryArticle } from '../../../functions/core/articles/article-actions';
import { createArticle } from '../../../functions/core/articles/create-article';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import {
  DUE_SLACK_MS,
  MAX_PUBLISH_ATTEMPTS,
  PUBLISH_GRACE_MS,
  publishRetryDelayMs,
} from '../../../functions/core/articles/lifecycle-policy';
import { publishArticle } from '../../../functions/core/publishing/publish-article';
import { retryDuePublications } from '../../../functions/core/publishing/sweep-publishing';
import { CmsError, CmsNotSentError } from '../../../functions/core/websites/cms-client';
import { createFakes, FakeDelivery, type Fakes } from '../../support/fakes';
import { actionDeps, articleInput, createDeps, generateDeps, publishDeps } from './helpers';

async function generatedOnWebsite(fakes: Fakes, fields: Record<string, unknown> = {}) {
  const accountId = await fakes.account(10);
  const website = await fakes.website(accountId);
  const article = await createArticle(
    createDeps(fakes),
    accountId,
    articleInput({ website_uuid: website.websiteUuid, ...fields }),
  );
  await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
  return { accountId, website, article };
}

const unreachable = () => new CmsError('unreachable', 'Connection refused');

describe('publishArticle', () => {
  it('publishes live and records the post, clearing the sweep', async () => {
    const fakes = createFakes();
    const { website, article } = await generatedOnWebsite(fakes);

    expect(await publishArticle(publishDeps(fakes), article)).toBe('published');

    const post = fakes.cms.postOf(article.articleUuid);
    expect(post?.post).toMatchObject({ status: 'publish', articleUuid: article.articleUuid });
    expect(fakes.cms.calls[0]?.site).toEqual({ url: website.url, login: 'inkpress', password: 'secret' });
    expect(fakes.articles.row(article)).toMatchObject({
      article: {
        publishState: 'published',
        cmsId: post?.result.cmsId,
        publishedAt: fakes.clock().toISOString(),
      },
      sweep: undefined,
    });
  });

  it('makes one post when the answer was lost: the retry finds it and marks it published', async () => {
    const fakes = createFakes();
    const { article } = await generatedOnWebsite(fakes);
    fakes.cms.loseNextAnswer = true;

    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    fakes.time.advance(publishRetryDelayMs(1));
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 1 });
    expect(await publishArticle(publishDeps(fakes), article)).toBe('skipped');

    expect(fakes.cms.posts.size).toBe(1);
    expect(fakes.cms.calls.filter((call) => call.kind === 'createPost')).toHaveLength(2);
  });

  it('flags an unreachable site, retries with backoff, and clears the flag once it publishes', async () => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    fakes.cms.failWith(unreachable());

    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    expect((await fakes.websites.get(accountId, website.websiteUuid))?.isUnreachable).toBe(true);
    const retryAt = new Date(fakes.clock().getTime() + publishRetryDelayMs(1)).toISOString();
    expect(fakes.articles.row(article)).toMatchObject({
      article: { publishState: 'pending', publishAttempts: 1, publishRetryAt: retryAt },
      sweep: { kind: 'publication', at: retryAt },
    });
    expect(fakes.articles.row(article)?.article.publishError).toContain('unreachable');
    // Not due yet: the sweep leaves it.
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 0 });

    fakes.time.advance(publishRetryDelayMs(1));
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 1 });
    expect((await fakes.websites.get(accountId, website.websiteUuid))?.isUnreachable).toBe(false);
  });

  it(`fails for good after ${MAX_PUBLISH_ATTEMPTS} attempts, and reports it once`, async () => {
    const fakes = createFakes();
    const { article } = await generatedOnWebsite(fakes);
    const finalFailures: string[] = [];
    const deps = {
      ...publishDeps(fakes),
      onFinalFailure: (ref: { articleUuid: string }) => finalFailures.push(ref.articleUuid),
    };
    const outcomes: string[] = [];
    for (let attempt = 1; attempt <= MAX_PUBLISH_ATTEMPTS; attempt++) {
      fakes.cms.failWith(unreachable());
      outcomes.push(await publishArticle(deps, article));
      fakes.time.advance(publishRetryDelayMs(attempt));
    }

    expect(outcomes).toEqual([...Array(MAX_PUBLISH_ATTEMPTS - 1).fill('retry_scheduled'), 'failed']);
    expect(fakes.articles.row(article)).toMatchObject({
      article: { publishState: 'failed', publishAttempts: MAX_PUBLISH_ATTEMPTS },
      sweep: undefined,
    });
    expect(finalFailures).toEqual([article.articleUuid]);
    expect(await publishArticle(deps, article)).toBe('skipped');
    // The generation stays as it was: generated, charged.
    expect(fakes.articles.row(article)?.article).toMatchObject({ state: 'generated', creditsCharged: 3 });
  });

  it.each([
    [
      'an HTML 404 of a proxy',
      new CmsError('unreachable', 'The site answered 404 with text/html instead of JSON', 404),
    ],
    [
      'a JSON 410 without the plugin’s code',
      new CmsError('unreachable', 'The site answered 410 (error)', 410),
    ],
  ])(
    'retries %s (not the plugin rejecting the post), keeping the earlier attempt’s unknown outcome, and publishes once',
    async (_label, notThePlugins) => {
      const fakes = createFakes();
      const { article, website } = await generatedOnWebsite(fakes);
      fakes.cms.loseNextAnswer = true;
      expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
      fakes.cms.failWith(notThePlugins);
      fakes.time.advance(publishRetryDelayMs(1));
      expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 0 });
      const afterRefusal = fakes.articles.row(article)?.article;
      expect(afterRefusal?.publishState).not.toBe('failed');
      // The post may be on the site from the lost answer: publishing stays with that login.
      expect(afterRefusal?.publishUncertainLogin).toBe(website.login);
      fakes.time.advance(publishRetryDelayMs(2));
      expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 1 });
    },
  );

  it('fails at once on a permanent rejection, keeping the site’s message', async () => {
    const fakes = createFakes();
    const { article } = await generatedOnWebsite(fakes);
    fakes.cms.failWith(new CmsError('invalid_request', 'Invalid slug.', 400, 'rest_invalid_param'));

    expect(await publishArticle(publishDeps(fakes), article)).toBe('failed');
    expect(fakes.articles.row(article)?.article.publishError).toBe('invalid_request: Invalid slug.');
  });

  /** Another site user's login for the website (same password), as `update` stores it. */
  async function changeLogin(fakes: Fakes, accountId: string, websiteUuid: string, login: string) {
    const website = await fakes.websites.get(accountId, websiteUuid);
    if (!website) throw new Error('no website');
    const { passwordCiphertext } = website;
    await fakes.websites.updateCredentials(
      accountId,
      websiteUuid,
      { login, passwordCiphertext, passwordContextVersion: 2 },
      {},
    );
  }

  it('never publishes as another site user after an attempt whose outcome is unknown: it fails, saying why', async () => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    fakes.cms.loseNextAnswer = true;
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    await changeLogin(fakes, accountId, website.websiteUuid, 'other-editor');
    const calls = fakes.cms.calls.length;

    fakes.time.advance(publishRetryDelayMs(1));
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ failed: 1 });
    expect(fakes.cms.calls).toHaveLength(calls);
    expect(fakes.cms.posts.size).toBe(1);
    expect(fakes.articles.row(article)?.article).toMatchObject({
      publishState: 'failed',
      publishError: expect.stringContaining(
        'login changed after an attempt as inkpress whose outcome is unknown',
      ),
    });

    // The client checked the site and retries: published as the new login.
    await retryArticle(actionDeps(fakes), accountId, article.articleUuid);
    expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
    expect(fakes.cms.calls.at(-1)?.site.login).toBe('other-editor');
  });

  it('takes a firewall page (HTML 403, no plugin code) as an unknown outcome: the site may have made the post, so a login change fails instead of posting twice', async () => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    fakes.cms.loseNextAnswer = new CmsError(
      'unreachable',
      'The site answered 403 with text/html instead of JSON',
      403,
    );
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    expect(fakes.articles.row(article)?.article.publishUncertainLogin).toBe('inkpress');
    await changeLogin(fakes, accountId, website.websiteUuid, 'other-editor');

    fakes.time.advance(publishRetryDelayMs(1));
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ failed: 1 });
    expect(fakes.cms.posts.size).toBe(1);
    expect(fakes.articles.row(article)?.article.publishError).toContain('login changed');
  });

  it('marks the login before sending: an attempt cut off after the site stored the post (nothing recorded after) still blocks another login', async () => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    fakes.cms.loseNextAnswer = true;
    // The store fails after the request (as if the process died): no retry or failure is recorded.
    const scheduleRetry = jest
      .spyOn(fakes.publications, 'scheduleRetry')
      .mockRejectedValueOnce(new Error('DynamoDB is down'));
    await expect(publishArticle(publishDeps(fakes), article)).rejects.toThrow('DynamoDB is down');
    scheduleRetry.mockRestore();
    expect(fakes.articles.row(article)?.article).toMatchObject({
      publishState: 'pending',
      publishUncertainLogin: 'inkpress',
    });

    await changeLogin(fakes, accountId, website.websiteUuid, 'other-editor');
    expect(await publishArticle(publishDeps(fakes), article)).toBe('failed');
    expect(fakes.cms.posts.size).toBe(1);
  });

  it('forgets its own mark when the site surely made nothing (a 4xx), so a later login change publishes', async () => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    fakes.cms.failWith(new CmsError('throttled', 'Slow down', 429, 'inkpress_throttled', 60));
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    expect(fakes.articles.row(article)?.article.publishUncertainLogin).toBeUndefined();
    await changeLogin(fakes, accountId, website.websiteUuid, 'other-editor');
    expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
  });

  it('keeps an unknown outcome through a final failure: a retry after a login change fails first, saying why', async () => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    fakes.cms.loseNextAnswer = true;
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    for (let attempt = 2; attempt <= MAX_PUBLISH_ATTEMPTS; attempt++) {
      fakes.cms.failWith(new CmsError('unreachable', 'No complete answer in time'));
      fakes.time.advance(publishRetryDelayMs(attempt - 1));
      await retryDuePublications(publishDeps(fakes));
    }
    expect(fakes.articles.row(article)?.article).toMatchObject({
      publishState: 'failed',
      publishUncertainLogin: 'inkpress',
    });
    await changeLogin(fakes, accountId, website.websiteUuid, 'other-editor');
    const calls = fakes.cms.calls.length;

    await retryArticle(actionDeps(fakes), accountId, article.articleUuid);
    expect(await publishArticle(publishDeps(fakes), article)).toBe('failed');
    expect(fakes.cms.calls).toHaveLength(calls);
    expect(fakes.articles.row(article)?.article.publishError).toContain('login changed');

    await retryArticle(actionDeps(fakes), accountId, article.articleUuid);
    expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
    expect(fakes.cms.calls.at(-1)?.site.login).toBe('other-editor');
  });

  it.each([
    [
      'a refused login (401)',
      () => new CmsError('unauthorized', 'Login failed', 401, 'inkpress_login_failed'),
    ],
    [
      'a request that never left (connection refused)',
      () => new CmsNotSentError('unreachable', 'Could not reach'),
    ],
    [
      'a failed insert in the plugin',
      () => new CmsError('plugin_error', 'Insert failed', 500, 'inkpress_insert_failed'),
    ],
    [
      "a proxy's HTML 404 (given before WordPress runs)",
      () => new CmsError('unreachable', 'The site answered 404 with text/html instead of JSON', 404),
    ],
    [
      "a host's HTML 429",
      () => new CmsError('unreachable', 'The site answered 429 with text/html instead of JSON', 429),
    ],
  ])('publishes as the new login after %s (no post can exist)', async (_label, failure) => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    fakes.cms.failWith(failure());
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    await changeLogin(fakes, accountId, website.websiteUuid, 'other-editor');
    await fakes.websites.recordHealth(accountId, website.websiteUuid, { loginIsUnauthorized: false });
    expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
    expect(fakes.cms.posts.size).toBe(1);
  });

  it('keeps publishing as the same login (any case) after an attempt whose outcome is unknown', async () => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    fakes.cms.failWith(new CmsError('unreachable', 'No complete answer in time'));
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    expect(fakes.articles.row(article)?.article.publishUncertainLogin).toBe('inkpress');
    await changeLogin(fakes, accountId, website.websiteUuid, 'InkPress');
    expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
    expect(fakes.articles.row(article)?.article.publishUncertainLogin).toBeUndefined();
  });

  it('retries a site whose plugin is missing (deactivated during its update), and publishes once it is back', async () => {
    const fakes = createFakes();
    const { article } = await generatedOnWebsite(fakes);
    fakes.cms.failWith(
      new CmsError('plugin_missing', 'The site has no inkpress/v1 routes', 404, 'rest_no_route'),
    );
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    fakes.time.advance(publishRetryDelayMs(1));
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 1 });
  });

  it('does not retry a throttled or refused login as permanent', async () => {
    const refused = createFakes();
    const first = await generatedOnWebsite(refused);
    refused.cms.failWith(new CmsError('unauthorized', 'Login failed', 401));
    expect(await publishArticle(publishDeps(refused), first.article)).toBe('retry_scheduled');
    const throttled = createFakes();
    const second = await generatedOnWebsite(throttled);
    throttled.cms.failWith(new CmsError('throttled', 'Slow down', 429, 'inkpress_throttled', 60));
    expect(await publishArticle(publishDeps(throttled), second.article)).toBe('retry_scheduled');
  });

  it("waits out the site's Retry-After when the plugin paused the login (longer than the backoff)", async () => {
    const fakes = createFakes();
    const { article } = await generatedOnWebsite(fakes);
    fakes.cms.failWith(new CmsError('throttled', 'Logins paused', 429, 'inkpress_throttled', 900));
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    const pauseEndsAt = fakes.clock().getTime() + 900_000;
    const attempts = () => fakes.cms.calls.filter((call) => call.kind === 'createPost').length;
    // No attempt before the pause is over: not after the backoff, nor by the sweep's slack
    // (it takes retries due within DUE_SLACK_MS).
    fakes.time.advance(publishRetryDelayMs(1));
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 0 });
    fakes.time.set(new Date(pauseEndsAt - 1).toISOString());
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 0 });
    expect(attempts()).toBe(1);
    expect(fakes.articles.row(article)?.article.publishAttempts).toBe(1);
    fakes.time.set(new Date(pauseEndsAt + DUE_SLACK_MS).toISOString());
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 1 });
    expect(attempts()).toBe(2);
  });

  it('honours a Retry-After of at most an hour, and keeps the backoff when it is longer', async () => {
    const nextAttemptIn = async (retryAfterSeconds: number) => {
      const fakes = createFakes();
      const { article } = await generatedOnWebsite(fakes);
      fakes.cms.failWith(
        new CmsError('throttled', 'Logins paused', 429, 'inkpress_throttled', retryAfterSeconds),
      );
      await publishArticle(publishDeps(fakes), article);
      return Date.parse(fakes.articles.row(article)?.article.publishRetryAt ?? '') - fakes.clock().getTime();
    };
    expect(await nextAttemptIn(2 * 60 * 60)).toBe(60 * 60_000 + DUE_SLACK_MS);
    // A site's absurd Retry-After cannot make the retry's date invalid.
    expect(await nextAttemptIn(1e20)).toBe(60 * 60_000 + DUE_SLACK_MS);
    expect(await nextAttemptIn(Number.POSITIVE_INFINITY)).toBe(60 * 60_000 + DUE_SLACK_MS);
    expect(await nextAttemptIn(10)).toBe(publishRetryDelayMs(1));
  });

  it('does not log in again with a login the site refused: the attempts count, the site is not called', async () => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    const other = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ website_uuid: website.websiteUuid }),
    );
    await generateQueuedArticle(generateDeps(fakes), other, new FakeDelivery());
    fakes.cms.failWith(new CmsError('unauthorized', 'Login failed', 401));
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    const loginsAfterRefusal = fakes.cms.calls.length;

    // The other article and every retry of both: no call reaches the site while the flag is set.
    expect(await publishArticle(publishDeps(fakes), other)).toBe('retry_scheduled');
    for (let attempt = 1; attempt < MAX_PUBLISH_ATTEMPTS; attempt++) {
      fakes.time.advance(publishRetryDelayMs(attempt));
      await retryDuePublications(publishDeps(fakes));
    }
    expect(fakes.cms.calls).toHaveLength(loginsAfterRefusal);
    expect(fakes.articles.row(other)?.article).toMatchObject({
      publishState: 'failed',
      publishAttempts: MAX_PUBLISH_ATTEMPTS,
      publishError: expect.stringContaining('refused the stored login'),
    });

    // New credentials clear the flag: a client's retry publishes.
    await fakes.websites.recordHealth(accountId, website.websiteUuid, {
      loginIsUnauthorized: false,
      isUnreachable: false,
    });
    fakes.cms.failWith();
    await retryArticle(actionDeps(fakes), accountId, other.articleUuid);
    expect(await publishArticle(publishDeps(fakes), other)).toBe('published');
  });

  it.each([
    ['clears is_unreachable: the site took the post', 'isUnreachable', false],
    [
      'keeps a refused-login flag: the password may have changed since this attempt logged in',
      'loginIsUnauthorized',
      true,
    ],
  ] as const)('a flag another call set while the post was being made: %s', async (_label, flag, after) => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    const createPost = fakes.cms.createPost.bind(fakes.cms);
    jest.spyOn(fakes.cms, 'createPost').mockImplementationOnce(async (site, post) => {
      await fakes.websites.recordHealth(accountId, website.websiteUuid, { [flag]: true });
      return createPost(site, post);
    });
    expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
    expect((await fakes.websites.get(accountId, website.websiteUuid))?.[flag]).toBe(after);
  });

  it('attempts a retry that falls due a few seconds after a sweep starts in that sweep, not one interval later', async () => {
    const fakes = createFakes();
    const { article } = await generatedOnWebsite(fakes);
    // The failing attempt ended 10 s into its sweep: its retry is due 10 s after the next one starts.
    fakes.time.advance(10_000);
    fakes.cms.failWith(unreachable());
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    fakes.time.advance(publishRetryDelayMs(1) - 10_000);
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 1 });
  });

  it('says a post may exist when the website was deleted after an attempt whose outcome is unknown', async () => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    fakes.cms.loseNextAnswer = true;
    expect(await publishArticle(publishDeps(fakes), article)).toBe('retry_scheduled');
    await fakes.websites.delete(accountId, website.websiteUuid);
    expect(await publishArticle(publishDeps(fakes), article)).toBe('website_gone');
    expect(fakes.articles.row(article)?.article).toMatchObject({
      publishState: 'failed',
      publishError:
        "The website was deleted before the article was published; an earlier attempt's outcome is unknown, so the post may be on the site already (made by inkpress).",
    });
  });

  it('fails the publication of an article whose website was deleted', async () => {
    const fakes = createFakes();
    const { accountId, website, article } = await generatedOnWebsite(fakes);
    await fakes.websites.delete(accountId, website.websiteUuid);

    expect(await publishArticle(publishDeps(fakes), article)).toBe('website_gone');
    expect(fakes.articles.row(article)?.article).toMatchObject({
      publishState: 'failed',
      publishError: 'The website was deleted before the article was published.',
    });
  });

  it('schedules a future post for publish_at and a draft for draft', async () => {
    const fakes = createFakes();
    const publishAt = '2026-03-05T09:00:00.000Z';
    const future = await generatedOnWebsite(fakes, { publish_at: publishAt });
    const draft = await generatedOnWebsite(fakes, { draft: true });
    await publishArticle(publishDeps(fakes), future.article);
    await publishArticle(publishDeps(fakes), draft.article);
    expect(fakes.cms.postOf(future.article.articleUuid)?.post).toMatchObject({
      status: 'future',
      dateGmt: publishAt,
    });
    expect(fakes.articles.row(future.article)?.article.publishedAt).toBe(publishAt);
    expect(fakes.cms.postOf(draft.article.articleUuid)?.post.status).toBe('draft');
    expect(fakes.articles.row(draft.article)?.article.publishedAt).toBeUndefined();
  });

  it('publishes without a category the site removed since the last refresh', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId);
    const categoryUuid = '7b0c9b4e-1d2a-4f3b-8c5d-6e7f8a9b0c1d';
    await fakes.categories.putAll([
      { websiteUuid: website.websiteUuid, categoryUuid, cmsId: '7', name: 'Bread', slug: 'bread' },
    ]);
    const article = await createArticle(
      createDeps(fakes),
      accountId,
      articleInput({ website_uuid: website.websiteUuid, category_uuid: categoryUuid }),
    );
    await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
    fakes.cms.failWith(new CmsError('invalid_request', 'Unknown category', 400, 'inkpress_unknown_category'));

    expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
    expect(fakes.cms.postOf(article.articleUuid)?.post.categoryCmsId).toBeUndefined();
  });

  it('leaves the first attempt to the worker: the sweeper steps in after the grace period', async () => {
    const fakes = createFakes();
    await generatedOnWebsite(fakes);
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 0 });
    fakes.time.advance(PUBLISH_GRACE_MS);
    expect(await retryDuePublications(publishDeps(fakes))).toMatchObject({ published: 1 });
  });
});
