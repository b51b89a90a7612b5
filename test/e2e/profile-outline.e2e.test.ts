/**
 * Issue 27 on the real WordPress, with the real `openai` client against the fake model: a site
 * profile's banned phrase never reaches the post (the model keeps using it) and its defaults fill
 * the options a create omits (a draft with a FAQ); an outline-review article waits in
 * `outline_ready`, takes edited headings and is published with exactly them; `research=web`
 * through a SearXNG-shaped search publishes links to fetched sources only.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as approveOutlineHandler } from '../../functions/api/approve-outline';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { handler as siteProfileHandler } from '../../functions/api/site-profile';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, fakeModelEnv, startFakeOpenAi } from '../support/fake-openai-server';
import { drainQueue } from '../support/generation-queue';
import { PLANTED_URL, type SourcePages, startSourcePages } from '../support/source-pages';
import { provisionTestResources } from '../support/test-resources';
import { e2eEnv as env, registerTestSite } from './support/test-site';

const WP_URL = env('WP_URL');

let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;
let pages: SourcePages;
let accountId: string;
let websiteUuid: string;

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
  pages = await startSourcePages();
  resources = await provisionTestResources({
    ...fakeModelEnv(fakeOpenAi),
    INKPRESS_LOCAL_MODE: 'true',
    PUBLIC_BASE_URL: '',
    SEARCH_PROVIDER: 'searxng',
    SEARXNG_URL: pages.url,
  });
  ({ accountId, websiteUuid } = await registerTestSite('E2E profile and outline', 200));
});

afterAll(async () => {
  await Promise.all([fakeOpenAi.close(), pages.close()]);
});

beforeEach(() => {
  fakeOpenAi.behaviour = { latencyMs: 0 };
});

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const create = (fields: Record<string, unknown>) =>
  createArticleHandler(
    apiEvent('create-article', {
      accountId,
      body: JSON.stringify({ website_uuid: websiteUuid, ...fields }),
      contentType: 'application/json',
    }),
  );
const show = async (uuid: string) =>
  body(
    await showArticleHandler(apiEvent('show-article', { accountId, pathParameters: { article_uuid: uuid } })),
  );
const credits = async () => (await deps.accountStore().get(accountId))?.credits;

/** The post as WordPress stores it (drafts too), read by the site's administrator. */
async function storedPost(postId: string): Promise<{ status: string; title: string; content: string }> {
  const auth = Buffer.from(`${env('WP_ADMIN_LOGIN')}:${env('WP_ADMIN_APP_PASSWORD')}`).toString('base64');
  const response = await fetch(`${WP_URL}/?rest_route=/wp/v2/posts/${postId}&context=edit`, {
    headers: { authorization: `Basic ${auth}` },
  });
  expect(response.status).toBe(200);
  const post = (await response.json()) as {
    status: string;
    title: { raw: string };
    content: { raw: string };
  };
  return { status: post.status, title: post.title.raw, content: post.content.raw };
}

const h2Texts = (html: string) =>
  [...html.matchAll(/<h2[^>]*>([\s\S]*?)<\/h2>/g)].map((match) => (match[1] ?? '').replace(/<[^>]*>/g, ''));

describe('a site profile on a real WordPress', () => {
  it("fills omitted options from its defaults and the stubborn model's banned phrase never reaches the post", async () => {
    const put = await siteProfileHandler(
      apiEvent('site-profile-put', {
        accountId,
        pathParameters: { website_uuid: websiteUuid },
        body: JSON.stringify({
          voice: 'Warm and precise.',
          banned_phrases: ['game changer'],
          defaults: { h2_count: 3, faq_count: 2, draft: 1, ai_model: 'gpt-3.5-turbo', language: 'en' },
        }),
        contentType: 'application/json',
      }),
    );
    expect(put.statusCode).toBe(200);
    fakeOpenAi.behaviour = { latencyMs: 0, stubbornPhrase: 'game changer' };

    const created = await create({ keyword: 'rye starter' });
    expect(created.statusCode).toBe(202);
    const uuid = body(created).article_uuid;
    await drainQueue(resources.queueUrl, worker);

    const article = await show(uuid);
    expect(article.status).toBe('generated');
    expect(article.data.quality_warnings).toContain('banned_phrase_removed:game changer');
    expect(article.data.publication.state).toBe('published');
    expect(article.data.publication.site.status).toBe('draft');
    const post = await storedPost(article.data.cms_id);
    expect(post.status).toBe('draft');
    expect(`${post.title}\n${post.content}`).not.toMatch(/game\s+changer/i);
    // Three H2 sections and the FAQ's heading, as the defaults asked.
    expect(h2Texts(post.content)).toHaveLength(3 + 1);
    expect(post.content).toContain('Frequently asked questions');
  });
});

describe('outline review on a real WordPress', () => {
  it('waits in outline_ready, takes the edited headings and publishes with exactly them', async () => {
    const before = await credits();
    const created = await create({
      keyword: 'spelt loaf',
      h2_count: 3,
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
      draft: 0,
      faq_count: 0,
      outline_review: 1,
    });
    expect(created.statusCode).toBe(202);
    const uuid = body(created).article_uuid;
    await drainQueue(resources.queueUrl, worker);
    const ready = await show(uuid);
    expect(ready.status).toBe('outline_ready');

    const approval = {
      title: 'Spelt loaves, step by step',
      headings: ['Choosing spelt flour', 'Mixing a gentle dough', 'Baking and cooling'],
    };
    const approved = await approveOutlineHandler(
      apiEvent('approve-outline', {
        accountId,
        pathParameters: { article_uuid: uuid },
        body: JSON.stringify(approval),
        contentType: 'application/json',
      }),
    );
    expect(approved.statusCode).toBe(202);
    await drainQueue(resources.queueUrl, worker);

    const article = await show(uuid);
    expect(article.status).toBe('generated');
    expect(article.data.publication.state).toBe('published');
    const page = await (await fetch(article.data.cms_permalink)).text();
    const entry = page.slice(page.indexOf('<body'));
    expect(entry).toContain(approval.title);
    expect(h2Texts(entry).filter((text) => approval.headings.includes(text.trim()))).toEqual(
      approval.headings,
    );
    const post = await storedPost(article.data.cms_id);
    expect(h2Texts(post.content).map((text) => text.trim())).toEqual(approval.headings);
    expect(await credits()).toBe((before ?? 0) - article.data.credits_used);
  });
});

describe('research=web on a real WordPress', () => {
  it('publishes links to the fetched search results only (the planted link and made-up URLs gone)', async () => {
    const created = await create({
      keyword: 'sourdough scoring',
      h2_count: 2,
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
      faq_count: 0,
      research: 'web',
    });
    expect(created.statusCode).toBe(202);
    const uuid = body(created).article_uuid;
    await drainQueue(resources.queueUrl, worker);
    const article = await show(uuid);
    expect(article.status).toBe('generated');
    const fetched = article.data.sources.filter((source: { error: string | null }) => source.error === null);
    expect(fetched.length).toBeGreaterThanOrEqual(1);
    expect(article.data.publication.state).toBe('published');

    const post = await storedPost(article.data.cms_id);
    const external = [...post.content.matchAll(/<a [^>]*href="([^"]*)"/g)]
      .map((match) => match[1] ?? '')
      .filter((href) => !href.startsWith(WP_URL));
    expect(external.length).toBeGreaterThanOrEqual(1);
    const fetchedUrls = fetched.map((source: { url: string }) => source.url);
    for (const href of external) expect(fetchedUrls).toContain(href);
    expect(post.content).not.toContain(PLANTED_URL);
    expect(h2Texts(post.content)).toContain('Sources');
  });
});
