/**
 * `GET /v1/account` and `GET /v1/account/usage` through their handlers, against DynamoDB Local,
 * moto and the real worker: the balance falls by exactly the credits of the generated articles,
 * and the usage totals (per day and per website) are those of the article records.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as usageHandler } from '../../functions/api/account-usage';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as listArticlesHandler } from '../../functions/api/list-articles';
import { handler as showAccountHandler } from '../../functions/api/show-account';
import { createAccount } from '../../functions/core/accounts';
import { utcDay } from '../../functions/core/wire';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { drainQueue } from '../support/generation-queue';
import { multipartBody, urlencodedBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

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

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);

async function newAccount(credits: number, dailyLimit?: number) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Usage test', credits, ...(dailyLimit ? { dailyLimit } : {}) },
  );
  return account.accountId;
}

const showAccount = async (accountId: string) =>
  body(await showAccountHandler(apiEvent('show-account', { accountId })));
const usage = (accountId: string, query: Record<string, string>) =>
  usageHandler(apiEvent('account-usage', { accountId, query }));

async function createArticle(accountId: string, fields: Record<string, string>) {
  const response = await createArticleHandler(
    apiEvent('create-article', {
      accountId,
      ...multipartBody({ keyword: 'sourdough', ai_model: 'gpt-3.5-turbo', language: 'en', ...fields }),
    }),
  );
  expect(response.statusCode).toBe(202);
  return body(response).article_uuid as string;
}

async function registerSite(accountId: string, path: string) {
  const response = await createWebsiteHandler(
    apiEvent('create-website', {
      accountId,
      ...urlencodedBody({ url: `${site.url}${path}`, login: 'inkpress', password: 'correct horse battery' }),
    }),
  );
  expect(response.statusCode).toBe(201);
  return body(response).data.uuid as string;
}

describe('GET /v1/account', () => {
  it('shows the balance, the daily limit, the starts of today and when the day resets', async () => {
    const accountId = await newAccount(50, 7);
    const before = await showAccount(accountId);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(before).toEqual({
      data: {
        name: 'Usage test',
        credits: 50,
        daily_limit: 7,
        articles_started_today: 0,
        daily_remaining: 7,
        day_resets_at: `${tomorrow} 00:00:00`,
      },
    });
    await createArticle(accountId, { h2_count: '2' });
    const after = await showAccount(accountId);
    expect(after.data).toMatchObject({ credits: 47, articles_started_today: 1, daily_remaining: 6 });
  });
});

describe('GET /v1/account/usage', () => {
  it('agrees with the article records: balance, totals and per-website figures', async () => {
    const accountId = await newAccount(100);
    const first = await registerSite(accountId, '/first');
    const second = await registerSite(accountId, '/second');
    await createArticle(accountId, { h2_count: '3', website_uuid: first });
    await createArticle(accountId, { h2_count: '2', need_bold: '1', website_uuid: first });
    await createArticle(accountId, { h2_count: '1', ai_model: 'gpt-4', website_uuid: second });
    await createArticle(accountId, { h2_count: '4' });
    await drainQueue(resources.queueUrl, worker);

    const articles = body(await listArticlesHandler(apiEvent('list-articles', { accountId, query: {} })))
      .data as {
      data: { credits_used: number; website: { uuid: string } | null };
    }[];
    expect(articles).toHaveLength(4);
    const spent = articles.reduce((sum, article) => sum + article.data.credits_used, 0);
    const spentOn = (websiteUuid: string) =>
      articles
        .filter((article) => article.data.website?.uuid === websiteUuid)
        .reduce((sum, article) => sum + article.data.credits_used, 0);

    expect((await showAccount(accountId)).data.credits).toBe(100 - spent);

    const today = utcDay(new Date());
    const response = await usage(accountId, { from: today, to: today });
    expect(response.statusCode).toBe(200);
    const { data } = body(response);
    expect(data).toMatchObject({ from: today, to: today, articles_generated: 4, credits_used: spent });
    expect(data.days).toHaveLength(1);
    expect(data.days[0]).toMatchObject({ date: today, articles_generated: 4, credits_used: spent });
    expect(data.days[0].websites).toEqual(
      expect.arrayContaining([
        { website_uuid: first, articles_generated: 2, credits_used: spentOn(first) },
        { website_uuid: second, articles_generated: 1, credits_used: spentOn(second) },
      ]),
    );
    expect(data.days[0].websites).toHaveLength(2);
  });

  it('lists every day of the range, zero where nothing was generated, last 30 days by default', async () => {
    const accountId = await newAccount(10);
    const response = await usage(accountId, {});
    expect(response.statusCode).toBe(200);
    const { data } = body(response);
    expect(data.days).toHaveLength(30);
    expect(data.to).toBe(utcDay(new Date()));
    expect(data.days[0]).toEqual({ date: data.from, articles_generated: 0, credits_used: 0, websites: [] });

    const leap = body(await usage(accountId, { from: '2028-01-01', to: '2028-12-31' })).data;
    expect(leap.days).toHaveLength(366);
    expect(leap.days.map((day: { date: string }) => day.date)).toContain('2028-02-29');
  });

  it.each([
    [{ from: '2026-02-30', to: '2026-03-01' }, 'from', 'The from is not a valid date.'],
    [{ from: 'yesterday', to: '2026-03-01' }, 'from', 'The from must be a date (YYYY-MM-DD).'],
    [{ from: '2026-03-02', to: '2026-03-01' }, 'to', 'The to date must not be before from.'],
    [{ from: '2025-01-01', to: '2026-01-02' }, 'to', 'The range may cover at most 366 days.'],
  ])('answers 422 to %j', async (query, field, message) => {
    const accountId = await newAccount(10);
    const response = await usage(accountId, query);
    expect(response.statusCode).toBe(422);
    expect(body(response)).toEqual({ message, errors: { [field]: [message] } });
  });
});
