/**
 * Internal links and the topic check against the real WordPress of test/e2e/wordpress/peer.sh
 * (plugin 1.5): a site with a dozen published posts, a draft and a private post; an article
 * created with internal_links=4 is published with 1-4 internal links, each to a published post
 * that answers 200, never the draft or the private post, with distinct anchors; a second create
 * on the first article's keyword is a 409 naming its URL, and passes with allow_same_topic=1.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { handler as showWebsiteHandler } from '../../functions/api/show-website';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { drainQueue } from '../support/generation-queue';
import { multipartBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';
import { e2eEnv as env, registerTestSite } from './support/test-site';
import { peer } from './support/wordpress-peer';

const WP_URL = env('WP_URL');
const KEYWORD = 'home bread baking';

const PUBLISHED = [
  'Rye flour for home bread',
  'Feeding a sourdough starter',
  'Baking stones for crusty bread',
  'Proofing baskets explained',
  'Scoring bread dough like a baker',
  'Bread flour and its protein',
  'Oven spring in home baking',
  'Hydration of bread dough',
  'Whole wheat bread for beginners',
  'Storing homemade bread',
  'Knitting for beginners',
  'Growing tomatoes on a balcony',
];

let resources: ProvisionedResources;
let accountId: string;
let websiteUuid: string;
let publishedIds: number[];
let hiddenIds: number[];

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);

function wpJson<T>(code: string): T {
  return JSON.parse(peer('php-eval', code)) as T;
}

function insertPost(title: string, status: string): number {
  const text = `${title}. A post of this site about ${title.toLowerCase()}, written by hand.`;
  return wpJson<number>(
    `echo wp_json_encode( wp_insert_post( array( 'post_title' => ${JSON.stringify(title)}, 'post_content' => ${JSON.stringify(`<!-- wp:paragraph --><p>${text}</p><!-- /wp:paragraph -->`)}, 'post_status' => '${status}', 'post_author' => 1 ) ) );`,
  );
}

beforeAll(async () => {
  resources = await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_SECRET_ARN;
  publishedIds = PUBLISHED.map((title) => insertPost(title, 'publish'));
  hiddenIds = [
    insertPost('Draft secrets of home bread baking', 'draft'),
    insertPost('Private notes on home bread baking', 'private'),
  ];
  ({ accountId, websiteUuid } = await registerTestSite('E2E site links', 1000));
});

afterEach(async () => {
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

const create = (fields: Record<string, string>) =>
  createArticleHandler(
    apiEvent('create-article', {
      accountId,
      ...multipartBody({
        keyword: KEYWORD,
        h2_count: '4',
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        website_uuid: websiteUuid,
        ...fields,
      }),
    }),
  );

const show = async (articleUuid: string) =>
  body(
    await showArticleHandler(
      apiEvent('show-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
    ),
  );

describe('internal links and the topic check on a real WordPress', () => {
  it('registration indexed the published posts only', async () => {
    const website = body(
      await showWebsiteHandler(
        apiEvent('show-website', { accountId, pathParameters: { website_uuid: websiteUuid } }),
      ),
    );
    expect(website.data.index_supported).toBe(1);
    const indexed = await deps.siteIndexStore().list(websiteUuid);
    const ids = indexed.map((post) => Number(post.postId));
    expect(ids).toEqual(expect.arrayContaining(publishedIds));
    for (const hidden of hiddenIds) expect(ids).not.toContain(hidden);
    expect(website.data.posts_indexed).toBe(indexed.length);
  });

  it('publishes an article with 1-4 internal links to published posts that answer 200, distinct anchors', async () => {
    const created = await create({ internal_links: '4' });
    expect(created.statusCode).toBe(202);
    const articleUuid = body(created).article_uuid;
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);
    const { data } = await show(articleUuid);
    expect(data.publication.state).toBe('published');
    const links: { url: string; post_id: string; anchor: string }[] = data.internal_links;
    expect(links.length).toBeGreaterThanOrEqual(1);
    expect(links.length).toBeLessThanOrEqual(4);
    expect(new Set(links.map((link) => link.anchor.toLowerCase())).size).toBe(links.length);
    expect(new Set(links.map((link) => link.post_id)).size).toBe(links.length);
    for (const link of links) {
      expect(hiddenIds).not.toContain(Number(link.post_id));
      expect(wpJson<string>(`echo wp_json_encode( get_post_status( ${Number(link.post_id)} ) );`)).toBe(
        'publish',
      );
      const answer = await fetch(link.url);
      expect(answer.status).toBe(200);
    }
    // On the site: the links are in the post, each target still published, none dropped.
    const content = peer('php-eval', `echo get_post( ${Number(data.cms_id)} )->post_content;`);
    const onSite = [...content.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]);
    expect(onSite.sort()).toEqual(links.map((link) => link.url).sort());
    expect(data.publication.site).toMatchObject({
      internal_links_kept: links.length,
      internal_links_dropped: 0,
    });

    // A second create on that keyword for the site: 409 naming the first article's URL, nothing charged.
    const second = await create({});
    expect(second.statusCode).toBe(409);
    expect(body(second).message).toContain(data.cms_permalink);
    expect(body(second).existing_post).toMatchObject({ id: data.cms_id, url: data.cms_permalink });
    const allowed = await create({ allow_same_topic: '1' });
    expect(allowed.statusCode).toBe(202);
  });

  it('the plugin drops a link whose target is no longer published, keeping its text', async () => {
    const target = publishedIds[0] as number;
    const url = wpJson<string>(`echo wp_json_encode( get_permalink( ${target} ) );`);
    const draftUrl = wpJson<string>(`echo wp_json_encode( get_permalink( ${hiddenIds[0]} ) );`);
    const site = { url: `${WP_URL}`, login: env('WP_LOGIN'), password: env('WP_PASSWORD') };
    const result = await deps.cmsClient().createPost(site, {
      articleUuid: crypto.randomUUID(),
      title: 'Link check',
      introHtml: `<p>See <a href="${url}">rye flour</a> and <a href="${draftUrl}">the draft</a>.</p>`,
      sections: [],
      status: 'draft',
      language: 'en',
      tags: [],
      internalLinks: [
        { url, postId: String(target) },
        { url: draftUrl, postId: String(hiddenIds[0]) },
      ],
    });
    // Plugin 1.5.2 names the link it dropped, as sent (show then leaves it out).
    expect(result.site).toMatchObject({
      internalLinksKept: 1,
      internalLinksDropped: 1,
      internalLinksDroppedUrls: [draftUrl],
    });
    const content = peer('php-eval', `echo get_post( ${Number(result.cmsId)} )->post_content;`);
    expect(content).toContain('the draft');
    expect(content).not.toContain(draftUrl);
    expect(content).toContain(`href="${url}"`);
  });
});
