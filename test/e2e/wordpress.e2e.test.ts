/**
 * End to end against a real WordPress 6.1 with the Inkpress Connector plugin of this repo
 * (test/e2e/wordpress/peer.sh): registration through the plugin, categories, live, draft and
 * scheduled articles checked through WordPress's own REST API, a wrong password, a site that
 * is down when the article is generated, retried publishes, deleting the website, and the
 * site's time zone (a batch calendar without a timezone, at the site's 09:00).
 * The API runs as its handlers on DynamoDB Local and moto, with the offline writer.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createBatchHandler } from '../../functions/api/create-batch';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as deleteWebsiteHandler } from '../../functions/api/delete-website';
import { handler as listCategoriesHandler } from '../../functions/api/list-categories';
import { handler as refreshCategoriesHandler } from '../../functions/api/refresh-categories';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { handler as showWebsiteHandler } from '../../functions/api/show-website';
import { createAccount } from '../../functions/core/accounts';
import {
  confirmScheduledPosts,
  FIRST_CHECK_AFTER_MS,
} from '../../functions/core/publishing/confirm-scheduled';
import { postFor, publishArticle } from '../../functions/core/publishing/publish-article';
import { retryDuePublications } from '../../functions/core/publishing/sweep-publishing';
import { LOGIN_FAILED_MESSAGE } from '../../functions/core/websites/site-failures';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { drainQueue } from '../support/generation-queue';
import { executableFindings, plainTextFindings } from '../support/hostile-text';
import { multipartBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';
import { e2eEnv as env, registerTestSite } from './support/test-site';
import { peer } from './support/wordpress-peer';

const WP_URL = env('WP_URL');
const WIRE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

let resources: ProvisionedResources;
let accountId: string;
let websiteUuid: string;
const articles: Record<string, string> = {};

beforeAll(async () => {
  resources = await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_SECRET_ARN;
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'E2E', credits: 1000 },
  );
  accountId = account.accountId;
});

afterAll(() => {
  // Leave the peer serving for the teardown, whatever a failed test did.
  peer('start-web');
});

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);

function register(fields: Record<string, string>) {
  return createWebsiteHandler(apiEvent('create-website', { accountId, ...multipartBody(fields) }));
}

async function createArticle(fields: Record<string, string>): Promise<string> {
  const response = await createArticleHandler(
    apiEvent('create-article', {
      accountId,
      ...multipartBody({ ai_model: 'gpt-3.5-turbo', language: 'en', ...fields }),
    }),
  );
  expect(response.statusCode).toBe(202);
  return body(response).article_uuid;
}

const showArticle = async (articleUuid: string) =>
  showArticleHandler(apiEvent('show-article', { accountId, pathParameters: { article_uuid: articleUuid } }));
const showWebsite = async () =>
  body(
    await showWebsiteHandler(
      apiEvent('show-website', { accountId, pathParameters: { website_uuid: websiteUuid } }),
    ),
  );
const generateAll = async () => {
  await new Promise((resolve) => setTimeout(resolve, 100));
  return drainQueue(resources.queueUrl, worker);
};

/**
 * A post as WordPress itself reports it (core REST API, the administrator's application
 * password: the Inkpress role cannot edit, so cannot read with context=edit, published posts).
 */
async function wpPost(cmsId: string) {
  const auth = Buffer.from(`${env('WP_ADMIN_LOGIN')}:${env('WP_ADMIN_APP_PASSWORD')}`).toString('base64');
  const response = await fetch(`${WP_URL}/?rest_route=/wp/v2/posts/${cmsId}&context=edit`, {
    headers: { Authorization: `Basic ${auth}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    id: number;
    status: string;
    date_gmt: string;
    slug: string;
    link: string;
    categories: number[];
    title: { raw: string };
    content: { raw: string };
  };
}

/** Posts on the site (any status) made for an article, counted by the plugin's meta key (per user). */
function postsForArticle(articleUuid: string): number {
  return Number(
    peer(
      'php-eval',
      `echo count(get_posts(array('post_type' => 'post', 'post_status' => 'any', 'numberposts' => -1, 'meta_key' => Inkpress_Rest::uuid_meta_key(${Number(env('WP_EDITOR_USER_ID'))}), 'meta_value' => '${articleUuid}')));`,
    ).trim(),
  );
}

describe('a real WordPress with the Inkpress Connector plugin', () => {
  it('registers the site with the user holding the plugin role, and its categories appear', async () => {
    const response = await register({
      url: `${WP_URL}/`,
      login: env('WP_LOGIN'),
      password: env('WP_PASSWORD'),
    });
    expect(response.statusCode).toBe(201);
    const record = body(response);
    expect(record).toEqual({
      data: {
        uuid: expect.any(String),
        url: WP_URL,
        total_credits_used: 0,
        articles_count: 0,
        categories_count: 4,
        created_at: expect.stringMatching(WIRE_TIME),
        // The peer's timezone_string (peer.sh), as the plugin's status reports it.
        timezone: 'UTC',
        // The site index is built at registration (plugin 1.5).
        index_supported: 1,
        indexed_at: expect.stringMatching(WIRE_TIME),
        posts_indexed: expect.any(Number),
      },
      status: { login_is_unauthorized: 0, is_unreachable: 0 },
    });
    websiteUuid = record.data.uuid;

    const categories = body(
      await listCategoriesHandler(
        apiEvent('list-categories', { accountId, pathParameters: { website_uuid: websiteUuid } }),
      ),
    );
    expect(
      categories.data.map((category: { name: string; cms_id: string }) => [category.name, category.cms_id]),
    ).toEqual([
      ['Guides', env('WP_CATEGORY_GUIDES_ID')],
      ['News', env('WP_CATEGORY_NEWS_ID')],
      ['Tutorials', env('WP_CATEGORY_TUTORIALS_ID')],
      ['Uncategorized', env('WP_CATEGORY_UNCATEGORIZED_ID')],
    ]);
  });

  it('refuses a wrong password with 422', async () => {
    const response = await register({
      url: `${WP_URL}/other`,
      login: env('WP_LOGIN'),
      password: 'not the password',
    });
    expect(response.statusCode).toBe(422);
    expect(body(response).errors).toEqual({
      login: [LOGIN_FAILED_MESSAGE],
      password: [LOGIN_FAILED_MESSAGE],
    });
  });

  it('refuses a user without the Inkpress Editor role with 422', async () => {
    const response = await register({
      url: `${WP_URL}/other`,
      login: env('WP_PLAIN_LOGIN'),
      password: env('WP_PLAIN_PASSWORD'),
    });
    expect(response.statusCode).toBe(422);
    expect(body(response).errors).toEqual({
      login: [LOGIN_FAILED_MESSAGE],
      password: [LOGIN_FAILED_MESSAGE],
    });
  });

  it('publishes one article live in a category, one as a draft and one scheduled', async () => {
    const categories = body(
      await listCategoriesHandler(
        apiEvent('list-categories', { accountId, pathParameters: { website_uuid: websiteUuid } }),
      ),
    ).data as { uuid: string; cms_id: string }[];
    const categoryUuid = (cmsId: string) =>
      categories.find((category) => category.cms_id === cmsId)?.uuid ?? '';
    const publishAt = new Date(Date.now() + 7 * 24 * 3600 * 1000);
    publishAt.setUTCMilliseconds(0);

    articles.live = await createArticle({
      keyword: 'sourdough starter',
      h2_count: '4',
      title: 'Sourdough starter from scratch',
      website_uuid: websiteUuid,
      // Other files of the run publish on this keyword to the same site.
      allow_same_topic: '1',
      category_uuid: categoryUuid(env('WP_CATEGORY_NEWS_ID')),
    });
    articles.draft = await createArticle({
      keyword: 'rye bread',
      h2_count: '2',
      website_uuid: websiteUuid,
      category_uuid: categoryUuid(env('WP_CATEGORY_TUTORIALS_ID')),
      draft: '1',
    });
    articles.scheduled = await createArticle({
      keyword: 'bread flour',
      h2_count: '3',
      website_uuid: websiteUuid,
      category_uuid: categoryUuid(env('WP_CATEGORY_GUIDES_ID')),
      publish_at: publishAt.toISOString(),
    });
    expect(await generateAll()).toBe(3);

    const expectations = [
      ['live', 'publish', env('WP_CATEGORY_NEWS_ID'), 4],
      ['draft', 'draft', env('WP_CATEGORY_TUTORIALS_ID'), 2],
      ['scheduled', 'future', env('WP_CATEGORY_GUIDES_ID'), 3],
    ] as const;
    for (const [name, status, categoryId, h2Count] of expectations) {
      const record = body(await showArticle(articles[name] ?? ''));
      expect(record.status).toBe('generated');
      expect(record.data.cms_id).toMatch(/^\d+$/);
      const post = await wpPost(record.data.cms_id);
      expect(post.status).toBe(status);
      expect(post.categories).toEqual([Number(categoryId)]);
      expect(post.content.raw.match(/<h2[ >]/g)).toHaveLength(h2Count);
      expect(post.title.raw).toBe(record.data.title);
      expect(post.slug).toBe(record.data.slug);
      expect(postsForArticle(articles[name] ?? '')).toBe(1);
      if (name === 'scheduled') {
        expect(post.date_gmt).toBe(publishAt.toISOString().slice(0, 19));
        expect(record.data.published_at).toBe(publishAt.toISOString().slice(0, 19).replace('T', ' '));
      }
      if (name === 'live') {
        expect(record.data.cms_permalink).toBe(`${WP_URL}/sourdough-starter-from-scratch/`);
        expect(post.link).toBe(record.data.cms_permalink);
        expect(record.data.published_at).toMatch(WIRE_TIME);
      }
      if (name === 'draft') expect(record.data.published_at).toBeNull();
    }
    expect((await showWebsite()).data.articles_count).toBe(3);
  });

  it('publishes a scheduled post whose time has come on the next request when WP-Cron does not run (the peer disables it)', async () => {
    // WordPress schedules only what is at least a minute ahead.
    const articleUuid = await createArticle({
      keyword: 'proofing basket',
      h2_count: '1',
      website_uuid: websiteUuid,
      publish_at: new Date(Date.now() + 2 * 3600 * 1000).toISOString(),
    });
    expect(await generateAll()).toBe(1);
    const cmsId = Number(body(await showArticle(articleUuid)).data.cms_id);
    const postStatus = () => peer('php-eval', `echo get_post_status(${cmsId});`).trim();
    // The plugin checks at most once a minute: one check is counted now, before the post is due.
    peer('php-eval', 'set_transient(Inkpress_Schedule::CHECKED, 1, 60);');
    expect(postStatus()).toBe('future');

    // Its time passes with no cron (the clock compressed: the post's date moves a minute back).
    peer(
      'php-eval',
      `global $wpdb; $gmt = gmdate('Y-m-d H:i:s', time() - 60); $wpdb->update($wpdb->posts, array('post_date_gmt' => $gmt, 'post_date' => get_date_from_gmt($gmt)), array('ID' => ${cmsId})); clean_post_cache(${cmsId});`,
    );
    expect((await fetch(`${WP_URL}/`)).status).toBe(200);
    // Due, but within the minute of the last check: still what WP-Cron left (Missed schedule).
    expect(postStatus()).toBe('future');

    peer('php-eval', 'delete_transient(Inkpress_Schedule::CHECKED);');
    expect((await fetch(`${WP_URL}/`)).status).toBe(200);
    expect(postStatus()).toBe('publish');
    expect(postsForArticle(articleUuid)).toBe(1);
  });

  it('reads a scheduled post back after its time: the read publishes it where WP-Cron did not, and the article shows it live', async () => {
    const publishAt = new Date(Date.now() + 2 * 3600 * 1000);
    const articleUuid = await createArticle({
      keyword: 'banneton care',
      h2_count: '1',
      website_uuid: websiteUuid,
      publish_at: publishAt.toISOString(),
    });
    expect(await generateAll()).toBe(1);
    const scheduled = body(await showArticle(articleUuid));
    const cmsId = Number(scheduled.data.cms_id);
    expect(scheduled.data.publication).toMatchObject({ state: 'scheduled', site: { status: 'future' } });
    const postStatus = () => peer('php-eval', `echo get_post_status(${cmsId});`).trim();
    // No missed-schedule check on `init` this minute: only the read can publish it.
    peer('php-eval', 'set_transient(Inkpress_Schedule::CHECKED, 1, 60);');
    peer(
      'php-eval',
      `global $wpdb; $gmt = gmdate('Y-m-d H:i:s', time() - 60); $wpdb->update($wpdb->posts, array('post_date_gmt' => $gmt, 'post_date' => get_date_from_gmt($gmt)), array('ID' => ${cmsId})); clean_post_cache(${cmsId});`,
    );
    expect(postStatus()).toBe('future');

    // The sweeper's step, run as at a minute past publish_at (our clock; the site's is the real one).
    const sweepAt = (ms: number) =>
      confirmScheduledPosts({
        ...deps.publishDeps(),
        publications: deps.publicationStore(),
        clock: () => new Date(publishAt.getTime() + ms),
      });
    // (Earlier tests' scheduled posts are due by then too, and read as well.)
    expect(await sweepAt(FIRST_CHECK_AFTER_MS)).toMatchObject({ still_scheduled: 0, errors: 0 });
    expect(postStatus()).toBe('publish');
    const live = body(await showArticle(articleUuid));
    const post = (await (await fetch(`${WP_URL}/?rest_route=/wp/v2/posts/${cmsId}`)).json()) as {
      link: string;
    };
    expect(live.data.cms_permalink).toBe(post.link);
    expect(post.link).not.toContain('?p=');
    expect(live.data.publication.site).toMatchObject({ status: 'publish', link: post.link });
    expect(postsForArticle(articleUuid)).toBe(1);
  });

  it('keeps an article generated while the site is down, flags it, and publishes it exactly once when it is back', async () => {
    peer('stop-web');
    try {
      articles.offline = await createArticle({
        keyword: 'oven spring',
        h2_count: '2',
        website_uuid: websiteUuid,
      });
      expect(await generateAll()).toBe(1);
      const record = body(await showArticle(articles.offline));
      expect(record.status).toBe('generated');
      expect(record.data.cms_id).toBeNull();
      expect((await showWebsite()).status).toEqual({ login_is_unauthorized: 0, is_unreachable: 1 });
    } finally {
      peer('start-web');
    }
    expect(postsForArticle(articles.offline)).toBe(0);

    const later = () => new Date(Date.now() + 10 * 60_000);
    expect(await retryDuePublications({ ...deps.publishDeps(), clock: later })).toMatchObject({
      published: 1,
    });
    expect(await retryDuePublications({ ...deps.publishDeps(), clock: later })).toMatchObject({
      published: 0,
    });
    expect(postsForArticle(articles.offline)).toBe(1);
    const published = body(await showArticle(articles.offline));
    expect((await wpPost(published.data.cms_id)).status).toBe('publish');
    expect((await showWebsite()).status).toEqual({ login_is_unauthorized: 0, is_unreachable: 0 });
  });

  it('creates one post however often the same publication is retried', async () => {
    const articleUuid = articles.live ?? '';
    const article = await deps.articleStore().get(accountId, articleUuid);
    const website = await deps.websiteStore().get(accountId, websiteUuid);
    if (!article || !website) throw new Error('missing test data');
    const site = { url: website.url, login: env('WP_LOGIN'), password: env('WP_PASSWORD') };
    const results = await Promise.all(
      Array.from({ length: 4 }, () => deps.cmsClient().createPost(site, postFor(article, new Date()))),
    );
    expect(new Set(results.map((result) => result.cmsId))).toEqual(new Set([article.cmsId]));
    expect(results.every((result) => !result.created)).toBe(true);
    expect(await publishArticle(deps.publishDeps(), { accountId, articleUuid })).toBe('skipped');
    expect(postsForArticle(articleUuid)).toBe(1);
  });

  it('publishes hostile text as text: no markup, script or shortcode runs on the site', async () => {
    articles.hostile = await createArticle({
      keyword: '&lt;script&gt;alert(1)&lt;/script&gt; [gallery] bread',
      h2_count: '2',
      title:
        '<img src=x onerror=alert(1)>&lt;svg onload=alert(1)&gt; [embed]https://evil.example/x[/embed] Tom &amp; Jerry',
      website_uuid: websiteUuid,
    });
    expect(await generateAll()).toBe(1);
    const record = body(await showArticle(articles.hostile));
    expect(plainTextFindings(record.data.title)).toEqual([]);
    expect(executableFindings(record.data.content)).toEqual([]);

    const post = await wpPost(record.data.cms_id);
    expect(post.status).toBe('publish');
    expect(plainTextFindings(post.title.raw)).toEqual([]);
    // Block delimiters are WordPress's own comments, and the classes the block editor saves on
    // headings and lists are the blocks' own; any other comment or attribute would still count.
    expect(
      executableFindings(
        post.content.raw
          .replace(/<!-- \/?wp:[\s\S]*?-->/g, '')
          .replace(/ class="wp-block-(heading|list)"/g, ''),
      ),
    ).toEqual([]);
    // As WordPress shows it: the_content filters (shortcodes, wpautop) and the title's filters ran.
    const auth = Buffer.from(`${env('WP_LOGIN')}:${env('WP_APP_PASSWORD')}`).toString('base64');
    const shown = (await (
      await fetch(`${WP_URL}/?rest_route=/wp/v2/posts/${record.data.cms_id}`, {
        headers: { Authorization: `Basic ${auth}` },
      })
    ).json()) as { title: { rendered: string }; content: { rendered: string } };
    expect(
      executableFindings(shown.content.rendered.replace(/ class="wp-block-(heading|list)"/g, '')).filter(
        (finding) => !finding.includes('<br>'),
      ),
    ).toEqual([]);
    // Shown as "[gallery]" (the plugin stores both brackets as &#091; / &#093;), never run as a gallery.
    expect(shown.content.rendered).toMatch(/&#0*91;gallery(\]|&#0*93;)/);
    expect(shown.content.rendered).not.toMatch(/class=['"]gallery/);
    // Titles keep their "[" as text: WordPress runs no shortcode in a title.
    expect(shown.title.rendered).toContain('[embed]');
    expect(
      executableFindings(`<p>${shown.title.rendered}</p>`).filter(
        (finding) => !finding.includes('shortcode'),
      ),
    ).toEqual([]);
  });

  it('deletes the website and keeps its articles readable', async () => {
    const response = await deleteWebsiteHandler(
      apiEvent('delete-website', { accountId, pathParameters: { website_uuid: websiteUuid } }),
    );
    expect(response.statusCode).toBe(200);
    expect(body(response).message).toContain(WP_URL);
    for (const articleUuid of Object.values(articles)) {
      const shown = await showArticle(articleUuid);
      expect(shown.statusCode).toBe(200);
      expect(body(shown).data).toMatchObject({
        website: null,
        category: null,
        cms_id: expect.stringMatching(/^\d+$/),
      });
    }
  });
});

describe("the site's time zone", () => {
  const php = (code: string) => peer('php-eval', code).trim();

  afterAll(() => {
    // As peer.sh sets the site up, for the files after this one.
    php("update_option('timezone_string', 'UTC'); update_option('gmt_offset', 0);");
  });

  it('keeps the zone WordPress reports (a manual offset too); a batch without timezone is at 09:00 there', async () => {
    php("update_option('timezone_string', 'Europe/Paris');");
    const site = await registerTestSite('E2E time zone', 100);
    const asSite = { accountId: site.accountId };
    const shown = await showWebsiteHandler(
      apiEvent('show-website', { ...asSite, pathParameters: { website_uuid: site.websiteUuid } }),
    );
    expect(body(shown).data.timezone).toBe('Europe/Paris');

    const batch = (start: string, keywords: string[]) =>
      createBatchHandler(
        apiEvent('create-batch', {
          ...asSite,
          contentType: 'application/json',
          body: JSON.stringify({
            items: keywords.map((keyword) => ({ keyword })),
            defaults: {
              h2_count: 2,
              ai_model: 'gpt-3.5-turbo',
              language: 'en',
              website_uuid: site.websiteUuid,
            },
            schedule: { start, every: '1d', at: '09:00' },
          }),
        }),
      );
    // 2027-03-28 is the spring change in Paris.
    const paris = await batch('2027-03-27', ['paris spring one', 'paris spring two']);
    expect(paris.statusCode).toBe(202);
    expect(body(paris).schedule.timezone).toBe('Europe/Paris');
    const items = body(paris).items as { article_uuid: string; publish_at: string }[];
    expect(items.map((item) => item.publish_at)).toEqual(['2027-03-27 08:00:00', '2027-03-28 07:00:00']);

    // Published as scheduled posts: WordPress puts both at 09:00 on its own clock.
    await generateAll();
    const cmsIds: string[] = [];
    for (const item of items) {
      const article = body(
        await showArticleHandler(
          apiEvent('show-article', { ...asSite, pathParameters: { article_uuid: item.article_uuid } }),
        ),
      );
      expect(article.data.cms_id).toMatch(/^\d+$/);
      cmsIds.push(article.data.cms_id);
    }
    const local = await Promise.all(
      cmsIds.map(async (cmsId) => ((await wpPost(cmsId)) as { date?: string }).date),
    );
    expect(local).toEqual(['2027-03-27T09:00:00', '2027-03-28T09:00:00']);
    for (const cmsId of cmsIds) php(`wp_delete_post(${Number(cmsId)}, true);`);

    // The owner sets a manual offset (UTC+5:30): the next status read keeps it as +05:30.
    php("update_option('timezone_string', ''); update_option('gmt_offset', 5.5);");
    const refreshed = await refreshCategoriesHandler(
      apiEvent('refresh-categories', { ...asSite, pathParameters: { website_uuid: site.websiteUuid } }),
    );
    expect(refreshed.statusCode).toBe(200);
    expect(body(refreshed).data.timezone).toBe('+05:30');
    const offset = await batch('2027-03-27', ['offset one']);
    expect(body(offset).items.map((item: { publish_at: string }) => item.publish_at)).toEqual([
      '2027-03-27 03:30:00',
    ]);
  });
});

afterEach(async () => {
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});
