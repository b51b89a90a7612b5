/**
 * Articles from sources against the real WordPress: three client sources (one dead) published
 * with only links to fetched sources, a sources section after the FAQ, the JSON-LD Article's
 * `citation` in the page head, the dead source's error in show; `require_sources=1` with only a
 * dead source fails and is refunded once. Offline writer (no model key), local pages on 127.0.0.1.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { drainQueue } from '../support/generation-queue';
import { type SourcePages, startSourcePages } from '../support/source-pages';
import { provisionTestResources } from '../support/test-resources';
import { e2eEnv as env, registerTestSite } from './support/test-site';

const WP_URL = env('WP_URL');

let resources: ProvisionedResources;
let pages: SourcePages;
let accountId: string;
let websiteUuid: string;

beforeAll(async () => {
  pages = await startSourcePages();
  resources = await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_SECRET_ARN;
  ({ accountId, websiteUuid } = await registerTestSite('E2E sources', 100));
});

afterAll(async () => {
  await pages.close();
});

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const create = (fields: Record<string, unknown>) =>
  createArticleHandler(
    apiEvent('create-article', {
      accountId,
      body: JSON.stringify({
        keyword: 'sourdough bread',
        h2_count: 2,
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        faq_count: 2,
        website_uuid: websiteUuid,
        // Both articles of this file share the keyword: the site's topic check would refuse the second.
        allow_same_topic: 1,
        ...fields,
      }),
      contentType: 'application/json',
    }),
  );
const show = async (uuid: string) =>
  body(
    await showArticleHandler(apiEvent('show-article', { accountId, pathParameters: { article_uuid: uuid } })),
  );
const credits = async () => (await deps.accountStore().get(accountId))?.credits;

describe('sources on a real WordPress', () => {
  it('publishes only links to fetched sources, a sources section and JSON-LD citation; the dead source shows its error', async () => {
    const sources = [`${pages.url}/starter`, `${pages.url}/baking`, `${pages.url}/dead`];
    const created = await create({ sources });
    expect(created.statusCode).toBe(202);
    const uuid = body(created).article_uuid;
    await drainQueue(resources.queueUrl, worker);
    const article = await show(uuid);
    expect(article.status).toBe('generated');
    expect(article.data.sources).toEqual([
      { url: sources[0], title: 'Sourdough starter basics', used: expect.any(Number), error: null },
      { url: sources[1], title: 'Baking sourdough bread', used: expect.any(Number), error: null },
      { url: sources[2], title: null, used: 0, error: 'The page answered HTTP 404.' },
    ]);
    const used = article.data.sources.filter((source: { used: number }) => source.used === 1);
    expect(used.length).toBeGreaterThanOrEqual(1);
    expect(article.data.publication.state).toBe('published');
    expect(article.data.publication.site).toMatchObject({
      external_links_kept: used.length,
      external_links_dropped: 0,
    });

    const page = await (await fetch(article.data.cms_permalink)).text();
    const entry = page.slice(page.indexOf('<body'));
    const links = [...entry.matchAll(/<a [^>]*href="([^"]*)"/g)]
      .map((match) => match[1] ?? '')
      .filter((href) => !href.startsWith(WP_URL) && !href.startsWith('/') && !href.startsWith('#'));
    expect(new Set(links)).toEqual(new Set(used.map((source: { url: string }) => source.url)));
    expect(entry).toMatch(/<h2[^>]*>Sources<\/h2>/);
    expect(entry.indexOf('Frequently asked questions')).toBeLessThan(entry.indexOf('>Sources</h2>'));
    const jsonLd = [...page.matchAll(/<script type="application\/ld\+json"[^>]*>([\s\S]*?)<\/script>/g)].map(
      (m) => JSON.parse(m[1] ?? '{}'),
    );
    const nodes = jsonLd.flatMap((doc) => (doc['@graph'] as Record<string, unknown>[] | undefined) ?? [doc]);
    const articleNode = nodes.find((node) => node['@type'] === 'Article');
    expect(articleNode?.citation).toEqual(
      used.map((source: { url: string; title: string }) => ({
        '@type': 'CreativeWork',
        name: source.title,
        url: source.url,
      })),
    );
  });

  it('require_sources with only a dead source fails and is refunded once', async () => {
    const before = await credits();
    const created = await create({ sources: `${pages.url}/dead`, require_sources: 1 });
    expect(created.statusCode).toBe(202);
    const uuid = body(created).article_uuid;
    const charged = await credits();
    expect(charged).toBeLessThan(before ?? 0);
    await drainQueue(resources.queueUrl, worker);
    await drainQueue(resources.queueUrl, worker);
    const article = await show(uuid);
    expect(article.status).toBe('error');
    expect(await credits()).toBe(before);
  });
});
