/**
 * Publishing generated articles to a website, through the real worker and sweeper code,
 * against DynamoDB Local, moto SQS/KMS and a fake plugin server on 127.0.0.1: live, draft and
 * scheduled posts with their category; a site that is down or refuses the login (flags set,
 * article kept, retried with backoff, published exactly once, flags cleared); lost answers;
 * deleted websites and categories; the periodic health check and category refresh.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as deleteWebsiteHandler } from '../../functions/api/delete-website';
import { handler as listCategoriesHandler } from '../../functions/api/list-categories';
import { handler as retryArticleHandler } from '../../functions/api/retry-article';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { handler as showWebsiteHandler } from '../../functions/api/show-website';
import { handler as updateWebsiteHandler } from '../../functions/api/update-website';
import { createAccount } from '../../functions/core/accounts';
import { MAX_PUBLISH_ATTEMPTS, publishRetryDelayMs } from '../../functions/core/articles/lifecycle-policy';
import { confirmScheduledPosts } from '../../functions/core/publishing/confirm-scheduled';
import { postFor, publishArticle } from '../../functions/core/publishing/publish-article';
import {
  checkWebsite,
  checkWebsites,
  retryDuePublications,
} from '../../functions/core/publishing/sweep-publishing';
import { categoryUuidFor } from '../../functions/core/websites/categories';
import type { SiteAccess } from '../../functions/core/websites/cms-client';
import type { Category } from '../../functions/core/websites/website';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { drainQueue } from '../support/generation-queue';
import { multipartBody, urlencodedBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

const PASSWORD = 'correct horse battery';
const MINUTE = 60_000;

let resources: ProvisionedResources;
let site: FakeWordPress;

beforeAll(async () => {
  site = await startFakeWordPress();
  resources = await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_SECRET_ARN;
});

afterAll(async () => {
  await site.close();
});

async function healSite() {
  await site.start();
  site.mode = 'ok';
  site.redirectLocation = undefined;
  site.postFailure = undefined;
  site.failedLogins.clear();
  site.users.set('inkpress', { password: PASSWORD, roles: ['inkpress_editor'] });
  site.index = undefined;
  site.pluginVersion = '1.5.0';
}

beforeEach(async () => {
  await healSite();
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

/** The sweep index is shared by every test here: publish what a test left pending, so the next starts clean. */
afterEach(async () => {
  await healSite();
  await sweepPublicationsAfter(24 * 60);
});

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);

async function setUp(path: string) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Publishing test', credits: 500 },
  );
  const accountId = account.accountId;
  const registered = await createWebsiteHandler(
    apiEvent('create-website', {
      accountId,
      ...urlencodedBody({ url: `${site.url}${path}`, login: 'inkpress', password: PASSWORD }),
    }),
  );
  expect(registered.statusCode).toBe(201);
  return { accountId, websiteUuid: body(registered).data.uuid as string };
}

async function createArticle(accountId: string, fields: Record<string, string>): Promise<string> {
  const response = await createArticleHandler(
    apiEvent('create-article', {
      accountId,
      ...multipartBody({
        keyword: 'lemon tart',
        h2_count: '3',
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        ...fields,
      }),
    }),
  );
  expect(response.statusCode).toBe(202);
  return body(response).article_uuid;
}

const showArticle = async (accountId: string, articleUuid: string) =>
  body(
    await showArticleHandler(
      apiEvent('show-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
    ),
  );
const showWebsite = async (accountId: string, websiteUuid: string) =>
  body(
    await showWebsiteHandler(
      apiEvent('show-website', { accountId, pathParameters: { website_uuid: websiteUuid } }),
    ),
  );
/** New credentials for the website: another site user (with the same password). */
const changeLogin = (accountId: string, websiteUuid: string, login: string) =>
  updateWebsiteHandler(
    apiEvent('update-website', {
      accountId,
      pathParameters: { website_uuid: websiteUuid },
      ...urlencodedBody({ login, password: PASSWORD }),
    }),
  );
const generateAll = () => drainQueue(resources.queueUrl, worker);
/** The sweeper's publication work, run as if `minutes` had passed. */
const sweepPublicationsAfter = (minutes: number) =>
  retryDuePublications({ ...deps.publishDeps(), clock: () => new Date(Date.now() + minutes * MINUTE) });
const postsOf = (articleUuid: string) =>
  [...site.posts.values()].filter((post) => post.article_uuid === articleUuid);

describe('publishing after generation', () => {
  it('accepts the website and category uuids in upper case', async () => {
    const { accountId, websiteUuid } = await setUp('/upper');
    const categoryUuid = categoryUuidFor(websiteUuid, '7');
    const articleUuid = await createArticle(accountId, {
      website_uuid: websiteUuid.toUpperCase(),
      category_uuid: categoryUuid.toUpperCase(),
    });
    const record = await showArticle(accountId, articleUuid);
    expect(record.data.website).toMatchObject({ uuid: websiteUuid });
    expect(record.data.category).toMatchObject({ uuid: categoryUuid });
  });

  it('shows the slug of a non-ASCII title as text, though WordPress keeps it percent-encoded', async () => {
    const { accountId, websiteUuid } = await setUp('/unicode');
    const articleUuid = await createArticle(accountId, {
      website_uuid: websiteUuid,
      title: 'Tarte au citron à Tōkyō',
    });
    expect(await generateAll()).toBe(1);
    const [post] = postsOf(articleUuid);
    expect(post?.slug).toBe('tarte-au-citron-a-tokyo');
    const japanese = await createArticle(accountId, { website_uuid: websiteUuid, title: '東京 guide' });
    expect(await generateAll()).toBe(1);
    expect(postsOf(japanese)[0]?.slug).toBe('%e6%9d%b1%e4%ba%ac-guide');
    expect((await showArticle(accountId, japanese)).data.slug).toBe('東京-guide');
  });

  it('publishes live, in its category, and records the post on the article', async () => {
    const { accountId, websiteUuid } = await setUp('/live');
    const categoryUuid = categoryUuidFor(websiteUuid, '7');
    const articleUuid = await createArticle(accountId, {
      website_uuid: websiteUuid,
      category_uuid: categoryUuid,
      title: 'Lemon tart that works',
    });
    expect(await generateAll()).toBe(1);

    const [post, ...others] = postsOf(articleUuid);
    expect(others).toEqual([]);
    expect(post).toMatchObject({
      status: 'publish',
      title: 'Lemon tart that works',
      slug: 'lemon-tart-that-works',
      category_ids: [7],
    });
    expect(post?.content.match(/<h2>/g)).toHaveLength(3);

    const record = await showArticle(accountId, articleUuid);
    expect(record.status).toBe('generated');
    expect(record.data).toMatchObject({
      status: 1,
      slug: 'lemon-tart-that-works',
      cms_id: String(post?.id),
      cms_permalink: `${site.url}/lemon-tart-that-works/`,
      published_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      website: expect.objectContaining({ uuid: websiteUuid, articles_count: 1 }),
      category: { uuid: categoryUuid, name: 'Recipes', slug: 'recipes', cms_id: '7' },
    });
    const website = await showWebsite(accountId, websiteUuid);
    expect(website.status).toEqual({ login_is_unauthorized: 0, is_unreachable: 0 });
    expect(website.data.articles_count).toBe(1);
    expect(website.data.total_credits_used).toBe(record.data.credits_used);

    // Nothing left for the sweeper.
    expect(await sweepPublicationsAfter(60)).toMatchObject({ published: 0, retry_scheduled: 0 });
  });

  it('sends the article as structured data past a firewall that blocks block markup, and shows what the site kept', async () => {
    const { accountId, websiteUuid } = await setUp('/structured');
    const articleUuid = await createArticle(accountId, {
      website_uuid: websiteUuid,
      faq_count: '2',
      tags: 'Baking, Citrus',
    });
    expect(await generateAll()).toBe(1);
    const [post] = postsOf(articleUuid);
    const record = await showArticle(accountId, articleUuid);
    expect(post?.sections.map((section) => section.heading)).toHaveLength(3);
    expect(post?.sections.some((section) => /<h2/.test(section.html))).toBe(false);
    expect(post).toMatchObject({
      faq: { heading: 'Frequently asked questions', items: record.data.faq },
      meta_description: record.data.meta_description,
      focus_keyword: 'lemon tart',
      excerpt: record.data.excerpt,
      tags: ['Baking', 'Citrus'],
      language: 'en',
    });
    expect(post?.content.match(/<h2>/g)).toHaveLength(4);
    expect(record.data.publication).toEqual({
      state: 'published',
      attempts: expect.any(Number),
      last_error: null,
      next_attempt_at: null,
      site: {
        post_id: String(post?.id),
        link: `${site.url}/${post?.slug}/`,
        status: 'publish',
        blocks: expect.any(Number),
        freeform_blocks: 0,
        tags: ['Baking', 'Citrus'],
        excerpt: 1,
        seo: { adapter: 'inkpress', meta_description: 1, focus_keyword: 1, title: 0 },
        schema: { printed_by: 'inkpress', types: ['Article', 'FAQPage'] },
        faq_questions: 2,
        external_links_kept: 0,
        featured_media_id: null,
        images_uploaded: 0,
        external_links_dropped: 0,
        // The fake plugin (1.4) reports no link check.
        internal_links_kept: 0,
        internal_links_dropped: 0,
      },
    });
  });

  it('once published, show lists the internal links on the site: those the plugin dropped are gone from internal_links and content', async () => {
    site.pluginVersion = '1.5.2';
    const indexed = (id: number, title: string, focus: string) => ({
      id,
      status: 'publish',
      title,
      link: `${site.url}/post-${id}/`,
      excerpt: `${title}: a guide for home bakers.`,
      focus_keyword: focus,
      categories: ['Recipes'],
      modified_gmt: '2026-01-05T10:00:00Z',
      noindex: false,
    });
    site.index = [
      indexed(11, 'Lemon curd for tarts', 'lemon curd'),
      indexed(12, 'Shortcrust pastry for tarts', 'shortcrust pastry'),
      indexed(13, 'Meringue topping for tarts', 'meringue topping'),
      indexed(14, 'Blind baking a tart shell', 'blind baking'),
    ];
    const { accountId, websiteUuid } = await setUp('/links');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid, internal_links: '4' });
    // Since the index was read, two of its posts were drafted or trashed on the site.
    const [first, second] = site.index;
    if (!first || !second) throw new Error('no index');
    first.status = 'draft';
    second.status = 'trash';
    expect(await generateAll()).toBe(1);
    const [post] = postsOf(articleUuid);
    const record = await showArticle(accountId, articleUuid);
    expect(record.data.publication.state).toBe('published');
    const kept = record.data.publication.site.internal_links_kept as number;
    expect(record.data.publication.site.internal_links_dropped).toBe(2);
    expect(kept).toBeGreaterThanOrEqual(1);
    const shown = record.data.internal_links as { url: string; post_id: string; anchor: string }[];
    // Show lists exactly the links on the site: none to the drafted or trashed post.
    expect(shown).toHaveLength(kept);
    expect(shown.map((link) => link.post_id)).not.toContain('11');
    expect(shown.map((link) => link.post_id)).not.toContain('12');
    const hrefs = (html: string) => [...html.matchAll(/<a href="([^"]*)">/g)].map((match) => match[1]).sort();
    expect(hrefs(record.data.content)).toEqual(shown.map((link) => link.url).sort());
    expect(hrefs(post?.content ?? '')).toEqual(shown.map((link) => link.url).sort());
  });

  it('sends a draft as a draft, without a publication date', async () => {
    const { accountId, websiteUuid } = await setUp('/draft');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid, draft: '1' });
    await generateAll();
    const [post] = postsOf(articleUuid);
    expect(post?.status).toBe('draft');
    const record = await showArticle(accountId, articleUuid);
    expect(record.data).toMatchObject({
      status: 0,
      cms_id: String(post?.id),
      cms_permalink: `${site.url}/?p=${post?.id}`,
      published_at: null,
      category: null,
    });
  });

  it('schedules an article with a future publish_at as a future post at that time', async () => {
    const { accountId, websiteUuid } = await setUp('/scheduled');
    const publishAt = new Date(Date.now() + 3 * 24 * 3600 * 1000);
    publishAt.setUTCMilliseconds(0);
    const articleUuid = await createArticle(accountId, {
      website_uuid: websiteUuid,
      category_uuid: categoryUuidFor(websiteUuid, '9'),
      publish_at: publishAt.toISOString(),
    });
    await generateAll();
    const [post] = postsOf(articleUuid);
    expect(post).toMatchObject({
      status: 'future',
      date_gmt: `${publishAt.toISOString().slice(0, 19)}Z`,
      category_ids: [9],
    });
    const record = await showArticle(accountId, articleUuid);
    expect(record.data.status).toBe(1);
    expect(record.data.published_at).toBe(publishAt.toISOString().slice(0, 19).replace('T', ' '));

    // After its time the sweeper reads the post back: the read makes it live (as plugin 1.4 does
    // where WP-Cron did not run) and the article shows the site's state and permalink.
    const confirmAt = (ms: number) =>
      confirmScheduledPosts({
        ...deps.publishDeps(),
        publications: deps.publicationStore(),
        clock: () => new Date(publishAt.getTime() + ms),
      });
    expect(await confirmAt(-MINUTE)).toMatchObject({ live: 0, still_scheduled: 0 });
    site.clockAheadMs = 3 * 24 * 3600 * 1000 + 2 * MINUTE;
    try {
      expect(await confirmAt(2 * MINUTE)).toMatchObject({ live: 1 });
    } finally {
      site.clockAheadMs = 0;
    }
    expect(postsOf(articleUuid)[0]?.status).toBe('publish');
    const live = await showArticle(accountId, articleUuid);
    expect(live.data.cms_permalink).toBe(`${site.url}/${postsOf(articleUuid)[0]?.slug}/`);
    // (`state` follows our clock, still before `publish_at` here; the site's was moved ahead.)
    expect(live.data.publication).toMatchObject({ site: { status: 'publish' } });
    expect(await confirmAt(60 * MINUTE)).toMatchObject({ live: 0 });
  });

  it('publishes at once when publish_at is in the past', async () => {
    const { accountId, websiteUuid } = await setUp('/past');
    const articleUuid = await createArticle(accountId, {
      website_uuid: websiteUuid,
      publish_at: '2020-01-01T00:00:00.000Z',
    });
    await generateAll();
    expect(postsOf(articleUuid).map((post) => post.status)).toEqual(['publish']);
  });

  it('does not publish an article without a website', async () => {
    const { accountId } = await setUp('/none');
    const before = site.posts.size;
    await createArticle(accountId, {});
    await generateAll();
    expect(site.posts.size).toBe(before);
  });
});

describe('when publishing fails', () => {
  it('keeps the article generated, flags an unreachable site, and publishes exactly once when it is back', async () => {
    const { accountId, websiteUuid } = await setUp('/down');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
    await site.stop();
    expect(await generateAll()).toBe(1);

    const generated = await showArticle(accountId, articleUuid);
    expect(generated.status).toBe('generated');
    expect(generated.data).toMatchObject({ cms_id: null, cms_permalink: null, published_at: null });
    expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
      login_is_unauthorized: 0,
      is_unreachable: 1,
    });
    const creditsUsed = generated.data.credits_used;

    // Not due yet; then due but the site is still down: backoff grows.
    expect(await sweepPublicationsAfter(0)).toMatchObject({ published: 0, retry_scheduled: 0 });
    expect(await sweepPublicationsAfter(publishRetryDelayMs(1) / MINUTE + 0.1)).toMatchObject({
      retry_scheduled: 1,
    });
    expect(await sweepPublicationsAfter(publishRetryDelayMs(1) / MINUTE + 0.2)).toMatchObject({
      retry_scheduled: 0,
    });

    await site.start();
    expect(await sweepPublicationsAfter(10)).toMatchObject({ published: 1 });
    expect(postsOf(articleUuid)).toHaveLength(1);
    const published = await showArticle(accountId, articleUuid);
    expect(published.data.cms_id).toBe(String(postsOf(articleUuid)[0]?.id));
    expect(published.data.credits_used).toBe(creditsUsed);
    expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
      login_is_unauthorized: 0,
      is_unreachable: 0,
    });

    // Further sweeps change nothing.
    expect(await sweepPublicationsAfter(120)).toMatchObject({ published: 0, retry_scheduled: 0 });
    expect(postsOf(articleUuid)).toHaveLength(1);
  });

  it('ends a publication the site rejects for good in failed, with its message, and publishes it once on retry', async () => {
    const { accountId, websiteUuid } = await setUp('/rejects');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
    site.postFailure = { status: 400, code: 'rest_invalid_json' };
    expect(await generateAll()).toBe(1);
    const failed = await showArticle(accountId, articleUuid);
    expect(failed.status).toBe('generated');
    expect(failed.data.publication).toEqual({
      state: 'failed',
      attempts: 1,
      last_error: expect.stringContaining('The plugin could not do this now.'),
      next_attempt_at: null,
      site: null,
    });
    // A final state: no sweep tries it again, however late.
    expect(await sweepPublicationsAfter(24 * 60)).toMatchObject({ published: 0, retry_scheduled: 0 });
    expect(postsOf(articleUuid)).toHaveLength(0);

    site.postFailure = undefined;
    const retried = await retryArticleHandler(
      apiEvent('retry-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
    );
    expect(retried.statusCode).toBe(202);
    expect(body(retried).data.publication).toMatchObject({ state: 'waiting', attempts: 0 });
    // The retry goes to the worker at once.
    expect(await generateAll()).toBe(1);
    const published = await showArticle(accountId, articleUuid);
    expect(published.data.publication).toMatchObject({ state: 'published', last_error: null });
    expect(postsOf(articleUuid)).toHaveLength(1);
    const again = await retryArticleHandler(
      apiEvent('retry-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
    );
    expect(again.statusCode).toBe(409);
    expect(postsOf(articleUuid)).toHaveLength(1);
  });

  it('gives up after a bounded number of attempts at a site that keeps failing, then waits for a retry', async () => {
    const { accountId, websiteUuid } = await setUp('/keeps-failing');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
    site.mode = 'server_error';
    await generateAll();
    let minutes = 0;
    for (let attempt = 2; attempt <= MAX_PUBLISH_ATTEMPTS; attempt++) {
      minutes += publishRetryDelayMs(attempt - 1) / MINUTE + 0.1;
      await sweepPublicationsAfter(minutes);
    }
    const record = await showArticle(accountId, articleUuid);
    expect(record.data.publication).toMatchObject({ state: 'failed', attempts: MAX_PUBLISH_ATTEMPTS });
    expect((await showWebsite(accountId, websiteUuid)).status.is_unreachable).toBe(1);
    site.mode = 'ok';
    expect(await sweepPublicationsAfter(minutes + 60)).toMatchObject({ published: 0 });
    expect(postsOf(articleUuid)).toHaveLength(0);
  });

  it('flags an unreachable site for HTML and server errors too', async () => {
    const { accountId, websiteUuid } = await setUp('/html');
    await createArticle(accountId, { website_uuid: websiteUuid });
    site.mode = 'html';
    await generateAll();
    expect((await showWebsite(accountId, websiteUuid)).status.is_unreachable).toBe(1);
    site.mode = 'server_error';
    await sweepPublicationsAfter(5);
    expect((await showWebsite(accountId, websiteUuid)).status.is_unreachable).toBe(1);
    site.mode = 'ok';
    expect(await sweepPublicationsAfter(60)).toMatchObject({ published: 1 });
    expect((await showWebsite(accountId, websiteUuid)).status.is_unreachable).toBe(0);
  });

  it('flags a site redirecting to a malformed address as unreachable, and retries', async () => {
    const { accountId, websiteUuid } = await setUp('/bad-redirect');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
    site.redirectLocation = 'http://exa mple.com/';
    expect(await generateAll()).toBe(1);
    expect((await showArticle(accountId, articleUuid)).status).toBe('generated');
    expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
      login_is_unauthorized: 0,
      is_unreachable: 1,
    });
    const stored = await deps.articleStore().get(accountId, articleUuid);
    expect(stored?.publishAttempts).toBe(1);

    site.redirectLocation = undefined;
    expect(await sweepPublicationsAfter(5)).toMatchObject({ published: 1 });
    expect(postsOf(articleUuid)).toHaveLength(1);
    expect((await showWebsite(accountId, websiteUuid)).status.is_unreachable).toBe(0);
  });

  it.each([
    [500, 'inkpress_insert_failed'],
    [503, 'inkpress_busy'],
  ])(
    'treats a plugin error (%i %s) as a reachable site: no flag, the flag cleared, retried with backoff',
    async (status, code) => {
      const { accountId, websiteUuid } = await setUp(`/plugin-error-${status}`);
      const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
      site.postFailure = { status, code };
      expect(await generateAll()).toBe(1);
      expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
        login_is_unauthorized: 0,
        is_unreachable: 0,
      });
      expect(postsOf(articleUuid)).toHaveLength(0);

      // The site goes down: flagged; back up but the plugin still fails: the flag clears.
      await site.stop();
      expect(await sweepPublicationsAfter(publishRetryDelayMs(1) / MINUTE + 0.1)).toMatchObject({
        retry_scheduled: 1,
      });
      expect((await showWebsite(accountId, websiteUuid)).status.is_unreachable).toBe(1);
      await site.start();
      expect(await sweepPublicationsAfter(publishRetryDelayMs(1) / MINUTE + 0.2)).toMatchObject({
        retry_scheduled: 0,
      });
      expect(
        await sweepPublicationsAfter(publishRetryDelayMs(1) / MINUTE + publishRetryDelayMs(2) / MINUTE + 0.3),
      ).toMatchObject({
        retry_scheduled: 1,
      });
      expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
        login_is_unauthorized: 0,
        is_unreachable: 0,
      });
      const stored = await deps.articleStore().get(accountId, articleUuid);
      expect(stored?.publishAttempts).toBe(3);
      expect(stored?.state).toBe('generated');

      site.postFailure = undefined;
      expect(await sweepPublicationsAfter(60)).toMatchObject({ published: 1 });
      expect(postsOf(articleUuid)).toHaveLength(1);
    },
  );

  it('flags a refused login, tries it no more, and publishes once the hourly check finds it works again', async () => {
    const { accountId, websiteUuid } = await setUp('/login');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
    site.users.set('inkpress', { password: 'changed on the site', roles: ['inkpress_editor'] });
    await generateAll();
    expect((await showArticle(accountId, articleUuid)).status).toBe('generated');
    expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
      login_is_unauthorized: 1,
      is_unreachable: 0,
    });
    expect(postsOf(articleUuid)).toHaveLength(0);

    // Retries do not log in with the refused login (the site's throttle would lock the user out).
    const logins = site.requests.length;
    expect(await sweepPublicationsAfter(5)).toMatchObject({ published: 0 });
    expect(site.requests.length).toBe(logins);

    site.users.set('inkpress', { password: PASSWORD, roles: ['inkpress_editor'] });
    const inAnHour = new Date(Date.now() + 61 * MINUTE);
    for (;;) {
      const { healthy, failing, errors } = await checkWebsites({
        ...deps.publishDeps(),
        clock: () => inAnHour,
      });
      if (healthy + failing + errors === 0) break;
    }
    expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
      login_is_unauthorized: 0,
      is_unreachable: 0,
    });
    expect(await sweepPublicationsAfter(62)).toMatchObject({ published: 1 });
    expect(postsOf(articleUuid)).toHaveLength(1);
    expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
      login_is_unauthorized: 0,
      is_unreachable: 0,
    });
  });

  it('flags a user that lost the role as unauthorized', async () => {
    const { accountId, websiteUuid } = await setUp('/role');
    await createArticle(accountId, { website_uuid: websiteUuid });
    site.users.set('inkpress', { password: PASSWORD, roles: ['subscriber'] });
    await generateAll();
    expect((await showWebsite(accountId, websiteUuid)).status.login_is_unauthorized).toBe(1);
  });

  it('flags a user that was made administrator as unauthorized', async () => {
    const { accountId, websiteUuid } = await setUp('/admin');
    await createArticle(accountId, { website_uuid: websiteUuid });
    site.users.set('inkpress', { password: PASSWORD, roles: ['inkpress_editor', 'administrator'] });
    await generateAll();
    expect((await showWebsite(accountId, websiteUuid)).status.login_is_unauthorized).toBe(1);
  });

  it("retries after the site's Retry-After when it paused logins for the user, without flagging the website", async () => {
    const { accountId, websiteUuid } = await setUp('/paused');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
    site.failedLogins.set(
      '/paused|inkpress',
      Array.from({ length: 5 }, () => Date.now()),
    );
    await generateAll();
    expect((await showArticle(accountId, articleUuid)).data.cms_id).toBeNull();
    expect(postsOf(articleUuid)).toHaveLength(0);
    expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
      login_is_unauthorized: 0,
      is_unreachable: 0,
    });

    site.failedLogins.clear();
    // The pause (15 minutes) is longer than the backoff: no attempt is spent before it ends.
    expect(await sweepPublicationsAfter(5)).toMatchObject({ published: 0 });
    expect(await sweepPublicationsAfter(16)).toMatchObject({ published: 1 });
    expect(postsOf(articleUuid)).toHaveLength(1);
  });
});

describe('exactly once', () => {
  it('a post made by an attempt whose answer was lost is found, not made again', async () => {
    const { accountId, websiteUuid } = await setUp('/lost');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
    await site.stop();
    await generateAll();
    await site.start();
    // The site got the post, but the answer never reached us (simulated by posting directly).
    const article = await deps.articleStore().get(accountId, articleUuid);
    const website = await deps.websiteStore().get(accountId, websiteUuid);
    if (!article || !website) throw new Error('missing test data');
    await deps
      .cmsClient()
      .createPost({ url: website.url, login: 'inkpress', password: PASSWORD }, postFor(article, new Date()));
    expect(postsOf(articleUuid)).toHaveLength(1);

    expect(await sweepPublicationsAfter(5)).toMatchObject({ published: 1 });
    expect(postsOf(articleUuid)).toHaveLength(1);
    expect((await showArticle(accountId, articleUuid)).data.cms_id).toBe(String(postsOf(articleUuid)[0]?.id));
  });

  /** An article whose first publication stored the post on the site and lost the answer; `otherLogin` is a second editor there. */
  async function postWithLostAnswer(path: string, otherLogin: string) {
    const { accountId, websiteUuid } = await setUp(path);
    site.users.set(otherLogin, { password: PASSWORD, roles: ['inkpress_editor'] });
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
    site.dropNextPostAnswer = true;
    await generateAll();
    return { accountId, websiteUuid, articleUuid };
  }

  it('a login changed after an attempt whose answer was lost fails the publication instead of making a second post', async () => {
    const { accountId, websiteUuid, articleUuid } = await postWithLostAnswer('/relogin', 'second-editor');
    expect(postsOf(articleUuid)).toHaveLength(1);
    expect((await showArticle(accountId, articleUuid)).data.publication).toMatchObject({ state: 'waiting' });

    expect((await changeLogin(accountId, websiteUuid, 'second-editor')).statusCode).toBe(200);
    expect(await sweepPublicationsAfter(5)).toMatchObject({ published: 0 });
    expect(postsOf(articleUuid)).toHaveLength(1);
    const { publication } = (await showArticle(accountId, articleUuid)).data;
    expect(publication).toMatchObject({ state: 'failed' });
    expect(publication.last_error).toContain(
      'login changed after an attempt as inkpress whose outcome is unknown',
    );

    // The client checked the site and retries: the worker publishes as the new login.
    const retried = await retryArticleHandler(
      apiEvent('retry-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
    );
    expect(retried.statusCode).toBe(202);
    expect(await generateAll()).toBe(1);
    expect((await showArticle(accountId, articleUuid)).data.publication).toMatchObject({
      state: 'published',
    });
    expect(postsOf(articleUuid).map((post) => post.author)).toEqual(['inkpress', 'second-editor']);
  });

  it('keeps an unknown outcome through the final failure: after a login change a retry fails first, saying why', async () => {
    const { accountId, websiteUuid, articleUuid } = await postWithLostAnswer(
      '/relogin-failed',
      'third-editor',
    );
    await site.stop();
    try {
      // The other attempts find the site down (nothing sent) until the publication fails.
      for (let minutes = 60; minutes <= 60 * MAX_PUBLISH_ATTEMPTS; minutes += 60)
        await sweepPublicationsAfter(minutes);
    } finally {
      await site.start();
    }
    expect((await showArticle(accountId, articleUuid)).data.publication).toMatchObject({
      state: 'failed',
      attempts: MAX_PUBLISH_ATTEMPTS,
    });
    expect((await changeLogin(accountId, websiteUuid, 'third-editor')).statusCode).toBe(200);
    const retry = () =>
      retryArticleHandler(
        apiEvent('retry-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
      );

    expect((await retry()).statusCode).toBe(202);
    await generateAll();
    const { publication } = (await showArticle(accountId, articleUuid)).data;
    expect(publication).toMatchObject({ state: 'failed' });
    expect(publication.last_error).toContain('login changed');
    expect(postsOf(articleUuid)).toHaveLength(1);

    expect((await retry()).statusCode).toBe(202);
    await generateAll();
    expect((await showArticle(accountId, articleUuid)).data.publication).toMatchObject({
      state: 'published',
    });
  });

  it('concurrent attempts (worker and sweeper) give one post and one record', async () => {
    const { accountId, websiteUuid } = await setUp('/race');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
    await site.stop();
    await generateAll();
    await site.start();
    const ref = { accountId, articleUuid };
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => publishArticle(deps.publishDeps(), ref)),
    );
    expect(outcomes.filter((outcome) => outcome === 'published').length).toBeGreaterThanOrEqual(1);
    expect(postsOf(articleUuid)).toHaveLength(1);
    expect(await publishArticle(deps.publishDeps(), ref)).toBe('skipped');
  });
});

describe('changes on either side', () => {
  it('publishes without the category when it was removed on the site', async () => {
    const { accountId, websiteUuid } = await setUp('/gone-category');
    const saved = site.categories;
    const articleUuid = await createArticle(accountId, {
      website_uuid: websiteUuid,
      category_uuid: categoryUuidFor(websiteUuid, '9'),
    });
    site.categories = saved.filter((category) => category.id !== 9);
    try {
      await generateAll();
      expect(postsOf(articleUuid)).toMatchObject([{ status: 'publish', category_ids: [1] }]);
    } finally {
      site.categories = saved;
    }
  });

  it('leaves the article unpublished when its website was deleted before publishing', async () => {
    const { accountId, websiteUuid } = await setUp('/deleted');
    const articleUuid = await createArticle(accountId, { website_uuid: websiteUuid });
    await site.stop();
    await generateAll();
    await site.start();
    const deleted = await deleteWebsiteHandler(
      apiEvent('delete-website', { accountId, pathParameters: { website_uuid: websiteUuid } }),
    );
    expect(deleted.statusCode).toBe(200);
    expect(await sweepPublicationsAfter(10)).toMatchObject({ website_gone: 1 });
    expect(await sweepPublicationsAfter(100)).toMatchObject({ website_gone: 0, published: 0 });
    expect(postsOf(articleUuid)).toHaveLength(0);
    const record = await showArticle(accountId, articleUuid);
    expect(record.status).toBe('generated');
    expect(record.data).toMatchObject({ website: null, cms_id: null });
  });
});

describe('health checks', () => {
  /** Runs the sweeper's health checks, as if `minutes` had passed, until no website is due. */
  const checkAfter = async (minutes: number) => {
    const at = new Date(Date.now() + minutes * MINUTE);
    for (;;) {
      const { healthy, failing, errors } = await checkWebsites({ ...deps.publishDeps(), clock: () => at });
      if (healthy + failing + errors === 0) return;
    }
  };

  it.each([
    ['while the site is asked for its categories', 'fetch'],
    ['just before the new categories are written', 'write'],
  ] as const)('does not re-create the categories of a website deleted %s', async (_label, when) => {
    const { accountId, websiteUuid } = await setUp(`/deleted-during-check-${when}`);
    const website = await deps.websiteStore().get(accountId, websiteUuid);
    if (!website) throw new Error('missing test data');
    const deleteWebsite = async () => {
      const deleted = await deleteWebsiteHandler(
        apiEvent('delete-website', { accountId, pathParameters: { website_uuid: websiteUuid } }),
      );
      expect(deleted.statusCode).toBe(200);
    };
    const cms = deps.cmsClient();
    const store = deps.categoryStore();
    const checkDeps = {
      ...deps.publishDeps(),
      cms: {
        status: cms.status.bind(cms),
        createPost: cms.createPost.bind(cms),
        readPost: cms.readPost.bind(cms),
        categories: async (access: SiteAccess) => {
          const fromSite = await cms.categories(access);
          if (when === 'fetch') await deleteWebsite();
          return fromSite;
        },
      },
      categories: {
        get: store.get.bind(store),
        listAll: store.listAll.bind(store),
        deleteMany: store.deleteMany.bind(store),
        putAll: async (categories: Category[]) => {
          if (when === 'write') await deleteWebsite();
          await store.putAll(categories);
        },
      },
    };
    const saved = site.categories;
    site.categories = [...saved, { id: 40, name: 'New on the site', slug: 'new', parent: 0 }];
    try {
      await checkWebsite(checkDeps, website, new Date(Date.now() + 61 * MINUTE));
    } finally {
      site.categories = saved;
    }
    expect(await store.listAll(websiteUuid)).toEqual([]);
    expect(await deps.websiteStore().get(accountId, websiteUuid)).toBeUndefined();
  });

  it('refreshes categories and sets and clears the flags on schedule', async () => {
    const { accountId, websiteUuid } = await setUp('/health');
    const saved = site.categories;
    try {
      // Checked at registration: not due again within the hour.
      site.requests = [];
      await checkAfter(30);
      expect(site.requests.filter((request) => request.route === '/inkpress/v1/status')).toHaveLength(0);

      site.categories = [
        { id: 1, name: 'Uncategorized', slug: 'uncategorized', parent: 0 },
        { id: 7, name: 'Baking', slug: 'baking', parent: 0 },
        { id: 12, name: 'Drinks', slug: 'drinks', parent: 0 },
        { id: 13, name: 'Tea', slug: 'tea', parent: 12 },
      ];
      await checkAfter(61);
      expect((await showWebsite(accountId, websiteUuid)).data.categories_count).toBe(4);
      const listed = body(
        await listCategoriesHandler(
          apiEvent('list-categories', { accountId, pathParameters: { website_uuid: websiteUuid } }),
        ),
      );
      expect(
        listed.data.map((category: { name: string; cms_id: string }) => [category.name, category.cms_id]),
      ).toEqual([
        ['Baking', '7'],
        ['Drinks', '12'],
        ['Tea', '13'],
        ['Uncategorized', '1'],
      ]);
      // The renamed category kept its uuid.
      expect(listed.data[0].uuid).toBe(categoryUuidFor(websiteUuid, '7'));

      await site.stop();
      await checkAfter(122);
      expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
        login_is_unauthorized: 0,
        is_unreachable: 1,
      });

      await site.start();
      site.users.set('inkpress', { password: 'rotated', roles: ['inkpress_editor'] });
      await checkAfter(183);
      expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
        login_is_unauthorized: 1,
        is_unreachable: 0,
      });

      site.users.set('inkpress', { password: PASSWORD, roles: ['inkpress_editor'] });
      await checkAfter(244);
      expect((await showWebsite(accountId, websiteUuid)).status).toEqual({
        login_is_unauthorized: 0,
        is_unreachable: 0,
      });
    } finally {
      site.categories = saved;
    }
  });
});
