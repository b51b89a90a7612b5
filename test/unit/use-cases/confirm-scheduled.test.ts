/**
 * Scheduled posts read back after their time (functions/core/publishing/confirm-scheduled.ts), with
 * the fakes: the read makes a due post live (as plugin 1.4 does) and the article follows; a site
 * that keeps it scheduled shows `scheduled` after its time and is read again on the schedule.
 */

import { presentPublication } from '../../../functions/core/articles/article-presenter';
import { createArticle } from '../../../functions/core/articles/create-article';
import { generateQueuedArticle } from '../../../functions/core/articles/generate-article';
import {
  confirmScheduledPosts,
  FIRST_CHECK_AFTER_MS,
  MAX_SCHEDULE_CHECKS,
  PUT_OFF_WHILE_REFUSED_MS,
  RECHECK_AFTER_MS,
  REFUSED_LOGIN_RECHECK_MS,
} from '../../../functions/core/publishing/confirm-scheduled';
import { publishArticle } from '../../../functions/core/publishing/publish-article';
import { CmsError } from '../../../functions/core/websites/cms-client';
import { createFakes, FakeDelivery, type Fakes } from '../../support/fakes';
import { articleInput, createDeps, generateDeps, publishDeps } from './helpers';

const HOUR = 60 * 60_000;

/** An article published to its website as a post scheduled an hour ahead. */
async function scheduledPost(fakes: Fakes) {
  const accountId = await fakes.account(10);
  const website = await fakes.website(accountId);
  const publishAt = new Date(fakes.clock().getTime() + HOUR).toISOString();
  const article = await createArticle(
    createDeps(fakes),
    accountId,
    articleInput({ website_uuid: website.websiteUuid, publish_at: publishAt }),
  );
  await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
  expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
  return { article, website, publishAt };
}

const state = (fakes: Fakes, article: { accountId: string; articleUuid: string }) => {
  const row = fakes.articles.row(article);
  if (!row) throw new Error('no article');
  return { publication: presentPublication(row.article, fakes.clock()), row };
};

describe('confirmScheduledPosts', () => {
  it('reads a scheduled post after its time: the site makes it live and the article follows', async () => {
    const fakes = createFakes();
    const { article, publishAt } = await scheduledPost(fakes);
    expect(state(fakes, article).row.sweep).toEqual({
      kind: 'confirmation',
      at: new Date(Date.parse(publishAt) + FIRST_CHECK_AFTER_MS).toISOString(),
    });
    expect(state(fakes, article).publication?.state).toBe('scheduled');

    fakes.time.advance(HOUR);
    expect(await confirmScheduledPosts(publishDeps(fakes))).toEqual({
      live: 0,
      still_scheduled: 0,
      done: 0,
      errors: 0,
    });
    fakes.time.advance(FIRST_CHECK_AFTER_MS);
    expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ live: 1 });

    const { publication, row } = state(fakes, article);
    expect(publication).toMatchObject({ state: 'published', site: { status: 'publish' } });
    expect(row.article.cmsPermalink).toMatch(/\/live-\d+\/$/);
    expect(row.sweep).toBeUndefined();
    expect(fakes.cms.calls.filter((call) => call.kind === 'readPost')).toHaveLength(1);
    expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ live: 0 });
  });

  it('shows a post the site made live at once as published, whatever its time (WordPress publishes a post due within a minute)', async () => {
    const fakes = createFakes();
    const { article } = await scheduledPost(fakes);
    const { row } = state(fakes, article);
    expect(presentPublication(row.article, fakes.clock())?.state).toBe('scheduled');
    const site = (status: string) => ({
      postId: '100',
      link: 'https://site.example/?p=100',
      status,
      blocks: 3,
      freeformBlocks: 0,
      tags: [],
      excerpt: true,
      seoAdapter: 'inkpress',
      metaDescription: true,
      focusKeyword: true,
      schemaBy: 'inkpress',
      schemaTypes: ['Article'],
      faqQuestions: 0,
    });
    const liveOnSite = { ...row.article, publicationSite: site('publish') };
    expect(presentPublication(liveOnSite, fakes.clock())?.state).toBe('published');
    const futureOnSite = { ...row.article, publicationSite: site('future') };
    expect(presentPublication(futureOnSite, fakes.clock())?.state).toBe('scheduled');
  });

  it('shows a post the site keeps scheduled after its time as scheduled while it reads it on the schedule, then lets the clock decide', async () => {
    const fakes = createFakes();
    fakes.cms.publishDue = false;
    const { article } = await scheduledPost(fakes);
    fakes.time.advance(HOUR + FIRST_CHECK_AFTER_MS);
    const outcomes: string[] = [];
    const states: string[] = [];
    for (let check = 1; check <= MAX_SCHEDULE_CHECKS; check++) {
      const counts = await confirmScheduledPosts(publishDeps(fakes));
      outcomes.push(Object.entries(counts).find(([, count]) => count > 0)?.[0] ?? 'none');
      states.push(String(state(fakes, article).publication?.state));
      fakes.time.advance(RECHECK_AFTER_MS[check - 1] ?? 0);
    }
    expect(outcomes).toEqual([...Array(MAX_SCHEDULE_CHECKS - 1).fill('still_scheduled'), 'done']);
    // Past its time, the site (read after it) still shows it scheduled; after the last read Inkpress
    // no longer knows better than the clock.
    expect(states).toEqual([...Array(MAX_SCHEDULE_CHECKS - 1).fill('scheduled'), 'published']);
    expect(state(fakes, article).publication?.site).toMatchObject({ status: 'future' });
    expect(state(fakes, article).row.sweep).toBeUndefined();
    expect(fakes.cms.calls.filter((call) => call.kind === 'readPost')).toHaveLength(MAX_SCHEDULE_CHECKS);
  });

  it('reads a site whose plugin predates reads (no route) on the schedule, the state left to the clock', async () => {
    const fakes = createFakes();
    const { article, website } = await scheduledPost(fakes);
    fakes.time.advance(HOUR + FIRST_CHECK_AFTER_MS);
    const noRoute = () =>
      new CmsError('plugin_missing', 'The site has no inkpress/v1 routes', 404, 'rest_no_route');
    fakes.cms.failWith(noRoute());
    const failed: unknown[] = [];
    const counts = await confirmScheduledPosts({
      ...publishDeps(fakes),
      onReadFailed: (_ref, error) => failed.push(error),
    });
    expect(counts).toMatchObject({ still_scheduled: 1 });
    expect(failed).toHaveLength(1);
    expect(state(fakes, article).publication?.state).toBe('published');
    // Its other routes work: the website is not flagged (no website.unhealthy for an older plugin).
    expect(await fakes.websites.get(website.accountId, website.websiteUuid)).toMatchObject({
      isUnreachable: false,
      loginIsUnauthorized: false,
    });
    // A plugin being updated answers the same for a moment: the next read finds it.
    fakes.time.advance(RECHECK_AFTER_MS[0]);
    expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ live: 1 });
  });

  it('flags the website when the read is refused, and does not send that login again', async () => {
    const fakes = createFakes();
    const { article, website } = await scheduledPost(fakes);
    fakes.time.advance(HOUR + FIRST_CHECK_AFTER_MS);
    fakes.cms.failWith(
      new CmsError('unauthorized', 'The site refused the login', 401, 'inkpress_login_failed'),
    );
    expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ still_scheduled: 1 });
    expect(await fakes.websites.get(website.accountId, website.websiteUuid)).toMatchObject({
      loginIsUnauthorized: true,
    });
    fakes.time.advance(RECHECK_AFTER_MS[0]);
    expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ still_scheduled: 1 });
    expect(fakes.cms.calls.filter((call) => call.kind === 'readPost')).toHaveLength(1);
    expect(state(fakes, article).publication?.state).toBe('published');
  });

  it('takes no link or slug of a post the site trashed or made a draft, and stops reading it', async () => {
    const fakes = createFakes();
    const { article } = await scheduledPost(fakes);
    const stored = fakes.cms.postOf(article.articleUuid);
    if (!stored) throw new Error('a post');
    const before = state(fakes, article).row.article;
    stored.result = { ...stored.result, status: 'trash', slug: `${before.slug}__trashed` };
    fakes.time.advance(HOUR + FIRST_CHECK_AFTER_MS);
    expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ live: 1 });
    const after = state(fakes, article);
    expect(after.row.article).toMatchObject({ cmsPermalink: before.cmsPermalink, slug: before.slug });
    expect(after.publication?.site).toMatchObject({ status: 'trash' });
    expect(after.row.sweep).toBeUndefined();
  });

  it('follows a post moved later on the site: its new time, read again after it', async () => {
    const fakes = createFakes();
    fakes.cms.publishDue = false;
    const { article, publishAt } = await scheduledPost(fakes);
    const stored = fakes.cms.postOf(article.articleUuid);
    if (!stored) throw new Error('a post');
    const later = new Date(Date.parse(publishAt) + 2 * HOUR).toISOString();
    stored.result = { ...stored.result, dateGmt: later };
    fakes.time.advance(HOUR + FIRST_CHECK_AFTER_MS);
    expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ still_scheduled: 1 });
    const { publication, row } = state(fakes, article);
    expect(row.article).toMatchObject({ publishedAt: later, scheduleChecks: 0 });
    expect(row.sweep).toEqual({
      kind: 'confirmation',
      at: new Date(Date.parse(later) + FIRST_CHECK_AFTER_MS).toISOString(),
    });
    expect(publication?.state).toBe('scheduled');
  });

  it('puts reads off without calling the site or counting them while its login is refused; reads once it is updated, and again after an unreachable site', async () => {
    const fakes = createFakes();
    const { article, website } = await scheduledPost(fakes);
    fakes.time.advance(HOUR + FIRST_CHECK_AFTER_MS);
    await fakes.websites.recordHealth(website.accountId, website.websiteUuid, { loginIsUnauthorized: true });
    const reads = () => fakes.cms.calls.filter((call) => call.kind === 'readPost').length;
    // Hours of a refused login: more put-offs than there are reads, none counted.
    for (let putOff = 0; putOff < MAX_SCHEDULE_CHECKS * 3; putOff++) {
      expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ still_scheduled: 1 });
      fakes.time.advance(REFUSED_LOGIN_RECHECK_MS);
    }
    expect(reads()).toBe(0);
    expect(state(fakes, article).row.article.scheduleChecks ?? 0).toBe(0);

    // Credentials updated: the reads go on, from the first.
    await fakes.websites.recordHealth(website.accountId, website.websiteUuid, { loginIsUnauthorized: false });
    fakes.cms.failWith(new CmsError('unreachable', 'Connection refused'));
    expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ still_scheduled: 1 });
    fakes.time.advance(RECHECK_AFTER_MS[0]);
    expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ live: 1 });
    expect(reads()).toBe(2);
    expect(state(fakes, article).publication?.state).toBe('published');
  });

  it('counts the reads of a login still refused a day after the post time, so they end', async () => {
    const fakes = createFakes();
    const { article, website } = await scheduledPost(fakes);
    await fakes.websites.recordHealth(website.accountId, website.websiteUuid, { loginIsUnauthorized: true });
    fakes.time.advance(HOUR + PUT_OFF_WHILE_REFUSED_MS);
    const outcomes: string[] = [];
    for (let check = 1; check <= MAX_SCHEDULE_CHECKS; check++) {
      const counts = await confirmScheduledPosts(publishDeps(fakes));
      outcomes.push(Object.entries(counts).find(([, count]) => count > 0)?.[0] ?? 'none');
      fakes.time.advance(RECHECK_AFTER_MS[check - 1] ?? 0);
    }
    expect(outcomes).toEqual([...Array(MAX_SCHEDULE_CHECKS - 1).fill('still_scheduled'), 'done']);
    expect(state(fakes, article).row.sweep).toBeUndefined();
    expect(fakes.cms.calls.filter((call) => call.kind === 'readPost')).toHaveLength(0);
  });

  it('stops reading a post deleted for good on the site, keeping what it knew', async () => {
    const fakes = createFakes();
    const { article } = await scheduledPost(fakes);
    fakes.cms.posts.clear();
    fakes.time.advance(HOUR + FIRST_CHECK_AFTER_MS);
    expect(await confirmScheduledPosts(publishDeps(fakes))).toMatchObject({ done: 1 });
    expect(state(fakes, article).row.sweep).toBeUndefined();
  });

  it('never reads back a post published live or as a draft', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(10);
    const website = await fakes.website(accountId);
    for (const fields of [{}, { draft: true, publish_at: new Date(Date.now() + HOUR).toISOString() }]) {
      const article = await createArticle(
        createDeps(fakes),
        accountId,
        articleInput({ website_uuid: website.websiteUuid, ...fields }),
      );
      await generateQueuedArticle(generateDeps(fakes), article, new FakeDelivery());
      expect(await publishArticle(publishDeps(fakes), article)).toBe('published');
      expect(state(fakes, article).row.sweep).toBeUndefined();
    }
  });
});
