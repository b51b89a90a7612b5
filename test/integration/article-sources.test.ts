/**
 * Articles from sources through the handlers and the worker: the real `openai` client against the
 * fake model (which writes from the passages it is given, and in one run makes a URL up and obeys
 * an instruction planted in a page), source pages and a SearXNG-shaped search on 127.0.0.1,
 * DynamoDB Local and moto SQS.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as retryArticleHandler } from '../../functions/api/retry-article';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { createAccount } from '../../functions/core/accounts';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import {
  type FakeOpenAi,
  fakeModelEnv,
  MADE_UP_URL,
  promptPassages,
  startFakeOpenAi,
} from '../support/fake-openai-server';
import { drainQueue } from '../support/generation-queue';
import { PLANTED_URL, type SourcePages, startSourcePages } from '../support/source-pages';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;
let pages: SourcePages;

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
  pages = await startSourcePages();
  resources = await provisionTestResources({
    ...fakeModelEnv(fakeOpenAi),
    PUBLIC_BASE_URL: '',
    SEARCH_PROVIDER: 'searxng',
    SEARXNG_URL: pages.url,
  });
});

afterAll(async () => {
  await fakeOpenAi.close();
  await pages.close();
});

async function newAccount(credits: number) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Sources', credits, dailyLimit: 1000 },
  );
  return account.accountId;
}

const json = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const create = (accountId: string, fields: Record<string, unknown>) =>
  createArticleHandler(
    apiEvent('create-article', {
      accountId,
      body: JSON.stringify({
        keyword: 'sourdough bread',
        h2_count: 3,
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        ...fields,
      }),
      contentType: 'application/json',
    }),
  );
const show = async (accountId: string, uuid: string) =>
  json(
    await showArticleHandler(apiEvent('show-article', { accountId, pathParameters: { article_uuid: uuid } })),
  );
const retryEvent = (accountId: string, uuid: string) =>
  apiEvent('retry-article', { accountId, pathParameters: { article_uuid: uuid } });
const credits = async (accountId: string) => (await deps.accountStore().get(accountId))?.credits;
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);

describe('articles written from sources', () => {
  it('cites only fetched sources though the model obeys a planted instruction and makes a URL up', async () => {
    fakeOpenAi.behaviour = { latencyMs: 0, obeySources: true };
    const accountId = await newAccount(100);
    const sources = [`${pages.url}/starter`, `${pages.url}/hostile`, `${pages.url}/dead`];
    const created = await create(accountId, { sources, faq_count: 2 });
    expect(created.statusCode).toBe(202);
    const uuid = json(created).article_uuid;
    await drainQueue(resources.queueUrl, worker);
    const article = await show(accountId, uuid);
    expect(article.status).toBe('generated');
    const content: string = article.data.content;

    // The model did obey: the planted and made-up links reached its answers...
    const prompts = fakeOpenAi.requests.map((request) =>
      ((request.messages as { content: string }[]) ?? []).map((message) => message.content).join('\n'),
    );
    const withPassages = prompts.filter((prompt) => promptPassages(prompt).length > 0);
    expect(withPassages.length).toBeGreaterThan(0);
    expect(withPassages.join('\n')).not.toMatch(/evil\.example\/(comment|white-text|display-none)/);
    // ...and the article has none of them, only links to the two fetched sources.
    expect(content).not.toContain('evil.example');
    expect(content).not.toContain(MADE_UP_URL);
    expect(content).toContain('click here');
    expect(new Set(hrefs(content))).toEqual(new Set([`${pages.url}/starter`, `${pages.url}/hostile`]));
    expect(article.data.external_links_removed).toBeGreaterThanOrEqual(2);

    const h2 = [...content.matchAll(/<h2>([^<]*)<\/h2>/g)].map((match) => match[1]);
    expect(h2.slice(-2)).toEqual(['Frequently asked questions', 'Sources']);
    expect(h2).toHaveLength(3 + 2);
    expect(article.data.sources).toEqual([
      { url: `${pages.url}/starter`, title: 'Sourdough starter basics', used: 1, error: null },
      { url: `${pages.url}/hostile`, title: 'Sourdough tips', used: 1, error: null },
      { url: `${pages.url}/dead`, title: null, used: 0, error: 'The page answered HTTP 404.' },
    ]);
    expect(article.data.quality_warnings).not.toContain('no_source_fetched');
    expect(PLANTED_URL).toContain('evil.example');
  });

  it('research=web finds sources through the search provider (its junk results ignored)', async () => {
    fakeOpenAi.behaviour = { latencyMs: 0 };
    const accountId = await newAccount(100);
    const created = await create(accountId, { research: 'web' });
    expect(created.statusCode).toBe(202);
    const uuid = json(created).article_uuid;
    await drainQueue(resources.queueUrl, worker);
    const article = await show(accountId, uuid);
    expect(article.status).toBe('generated');
    const fetched = article.data.sources.filter((source: { error: string | null }) => source.error === null);
    expect(fetched.length).toBeGreaterThanOrEqual(3);
    for (const href of hrefs(article.data.content)) expect(href?.startsWith(pages.url)).toBe(true);
    expect(article.data.content).toContain('<h2>Sources</h2>');
  });

  it('writes without sources and says so when none could be fetched; fails and refunds once with require_sources', async () => {
    const accountId = await newAccount(100);
    const without = json(
      await create(accountId, {
        sources: [`${pages.url}/dead`, `${pages.url}/binary`, `${pages.url}/nested`],
      }),
    );
    const required = json(await create(accountId, { sources: `${pages.url}/dead`, require_sources: 1 }));
    expect(await credits(accountId)).toBe(100 - 2 * 4);
    await drainQueue(resources.queueUrl, worker);

    const written = await show(accountId, without.article_uuid);
    expect(written.status).toBe('generated');
    expect(written.data.quality_warnings).toContain('no_source_fetched');
    expect(written.data.sources).toEqual([
      { url: `${pages.url}/dead`, title: null, used: 0, error: 'The page answered HTTP 404.' },
      {
        url: `${pages.url}/binary`,
        title: null,
        used: 0,
        error: 'The page is not HTML or plain text (image/png).',
      },
      {
        url: `${pages.url}/nested`,
        title: null,
        used: 0,
        error: 'The page nests its markup more than 256 levels deep: not read.',
      },
    ]);
    const failed = await show(accountId, required.article_uuid);
    expect(failed.status).toBe('error');
    expect(failed.data.sources).toEqual([
      { url: `${pages.url}/dead`, title: null, used: 0, error: 'The page answered HTTP 404.' },
    ]);
    expect(await credits(accountId)).toBe(100 - 4);
    await drainQueue(resources.queueUrl, worker);
    expect(await credits(accountId)).toBe(100 - 4);
    // Retried, its sources are not fetched yet: the last failure's reasons go.
    expect((await retryArticleHandler(retryEvent(accountId, required.article_uuid))).statusCode).toBe(202);
    expect((await show(accountId, required.article_uuid)).data.sources).toEqual([
      { url: `${pages.url}/dead`, title: null, used: 0, error: null },
    ]);
    await drainQueue(resources.queueUrl, worker);
  });

  it('refuses bad sources with a 422 on `sources` and charges nothing', async () => {
    const accountId = await newAccount(100);
    const eleven = Array.from({ length: 11 }, (_, index) => `https://a.example/${index}`);
    for (const sources of [eleven, 'ftp://a.example/x', 'not a url']) {
      const response = await create(accountId, { sources });
      expect(response.statusCode).toBe(422);
      expect(Object.keys(json(response).errors)).toEqual(['sources']);
    }
    expect(await credits(accountId)).toBe(100);
  });
});
