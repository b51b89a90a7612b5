/**
 * What an integrator builds on, black-box on the local stack (`npm start`'s runtime: API,
 * worker, webhook dispatcher, on DynamoDB Local and moto) with a real WordPress and the plugin,
 * driven through the typed client of clients/typescript: signed webhooks verified with the
 * `standardwebhooks` library (a 500 brings the same webhook-id again), the balance and the usage
 * that agree with the article, a category added on the site that appears after a refresh, and
 * the reference page rendering every operation in headless Chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { createInkpressClient, type InkpressClient } from '../../clients/typescript';
import { createAccount } from '../../functions/core/accounts';
import { utcDay } from '../../functions/core/wire';
import { type LocalRuntime, startLocalRuntime } from '../../local/local-runtime';
import * as deps from '../support/deps';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver';
import { e2eEnv as env } from './support/test-site';
import { peer } from './support/wordpress-peer';

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let dataDir: string;
let runtime: LocalRuntime;
let receiver: WebhookReceiver;
let inkpress: InkpressClient;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-e2e-integrator-'));
  receiver = await startWebhookReceiver();
  runtime = await startLocalRuntime({
    port: 0,
    dataDir,
    sweepSeconds: 0,
    firstSweepAfterMs: 600_000,
    pollWaitSeconds: 1,
    log: () => undefined,
  });
  const { token } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Integrator', credits: 100 },
  );
  inkpress = createInkpressClient({ baseUrl: runtime.baseUrl, token });
}, 180_000);

afterAll(async () => {
  await runtime?.stop();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function verify(request: ReceivedWebhook, secret: string) {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  }) as { type: string; timestamp: string; data: { data: Record<string, unknown>; status: string } };
}

let websiteUuid = '';

describe('an integration on the local stack with a real WordPress', () => {
  it('gets signed events for a published article, retried with one webhook-id, and a usage that agrees', async () => {
    receiver.plan('/events', [500]);
    const hook = await inkpress.POST('/v1/webhooks/create', {
      body: { url: `${receiver.url}/events`, events: ['article.generated', 'article.published'] },
    });
    if (!hook.data) throw new Error(`webhook not created: ${JSON.stringify(hook.error)}`);
    const secret = hook.data.data.secret;

    const before = (await inkpress.GET('/v1/account')).data?.data.credits ?? -1;
    const website = await inkpress.POST('/v1/websites/create', {
      body: { url: `${env('WP_URL')}/`, login: env('WP_LOGIN'), password: env('WP_PASSWORD') },
    });
    if (!website.data) throw new Error(`website not registered: ${JSON.stringify(website.error)}`);
    websiteUuid = website.data.data.uuid;

    const created = await inkpress.POST('/v1/articles/create', {
      body: {
        keyword: 'cast iron skillet care',
        h2_count: 3,
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        website_uuid: websiteUuid,
      },
    });
    if (!created.data) throw new Error(`article not queued: ${JSON.stringify(created.error)}`);
    const articleUuid = created.data.article_uuid;

    const published = await eventually(
      () => receiver.requestsTo('/events', 'article.published'),
      (requests) => requests.length > 0,
    );
    expect(published).toHaveLength(1);
    const generated = await eventually(
      () => receiver.requestsTo('/events', 'article.generated'),
      (requests) => requests.length >= 2,
    );
    const [first, second] = generated as [ReceivedWebhook, ReceivedWebhook];
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verify(second, secret)).toMatchObject({
      type: 'article.generated',
      data: { status: 'generated', data: { uuid: articleUuid } },
    });
    const publishedEvent = verify(published[0] as ReceivedWebhook, secret);
    expect(publishedEvent.data.data).toMatchObject({ uuid: articleUuid, cms_id: expect.any(String) });

    const shown = await inkpress.GET('/v1/articles/{article_uuid}/show', {
      params: { path: { article_uuid: articleUuid } },
    });
    const article = shown.data;
    if (article?.status !== 'generated') throw new Error('the article is generated');
    expect(article.data.publication?.state).toBe('published');
    expect(publishedEvent.data).toEqual(article);

    const account = (await inkpress.GET('/v1/account')).data?.data;
    expect(account?.credits).toBe(before - article.data.credits_used);
    const today = utcDay(new Date());
    const usage = (await inkpress.GET('/v1/account/usage', { params: { query: { from: today, to: today } } }))
      .data?.data;
    expect(usage).toMatchObject({ articles_generated: 1, credits_used: article.data.credits_used });
    expect(usage?.days[0]?.websites).toEqual([
      { website_uuid: websiteUuid, articles_generated: 1, credits_used: article.data.credits_used },
    ]);

    const deliveries = await inkpress.GET('/v1/webhooks/{webhook_uuid}/deliveries', {
      params: { path: { webhook_uuid: hook.data.data.uuid } },
    });
    const attempts = deliveries.data?.data ?? [];
    expect(
      attempts
        .filter((attempt) => attempt.event === 'article.generated')
        .map((attempt) => [attempt.attempt, attempt.status_code, attempt.result]),
    ).toEqual([
      [2, 200, 'succeeded'],
      [1, 500, 'retrying'],
    ]);
  });

  it('shows a category added on the WordPress site after a refresh', async () => {
    const listNames = async () =>
      (
        await inkpress.GET('/v1/websites/{website_uuid}/categories', {
          params: { path: { website_uuid: websiteUuid } },
        })
      ).data?.data.map((category) => category.name) ?? [];
    expect(await listNames()).not.toContain('Field Notes');
    const termId = peer(
      'php-eval',
      "$t = wp_insert_term('Field Notes', 'category'); echo is_wp_error($t) ? 0 : $t['term_id'];",
    ).trim();
    try {
      const before = (
        await inkpress.GET('/v1/websites/{website_uuid}/show', {
          params: { path: { website_uuid: websiteUuid } },
        })
      ).data?.data.categories_count;
      const refreshed = await inkpress.POST('/v1/websites/{website_uuid}/categories/refresh', {
        params: { path: { website_uuid: websiteUuid } },
      });
      expect(refreshed.response.status).toBe(200);
      expect(refreshed.data?.data.categories_count).toBe((before ?? 0) + 1);
      expect(await listNames()).toContain('Field Notes');
    } finally {
      peer('php-eval', `wp_delete_term(${Number(termId)}, 'category');`);
    }
  });

  it('renders the reference page with every operation in headless Chromium, loading nothing from elsewhere', async () => {
    const spec = (await inkpress.GET('/v1/openapi.json')).data as {
      paths: Record<string, Record<string, { summary: string }>>;
      webhooks: Record<string, { post: { summary: string } }>;
    };
    const summaries = [
      ...Object.values(spec.paths).flatMap((item) =>
        Object.values(item).map((operation) => operation.summary),
      ),
      ...Object.values(spec.webhooks).map((item) => item.post.summary),
    ];
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
    try {
      const page = await browser.newPage();
      // Redoc's footer links a logo on its CDN: the page's Content-Security-Policy stops it in the
      // browser, so nothing may leave for another host (a request blocked by the CSP is fine).
      const elsewhere: string[] = [];
      const isElsewhere = (url: string) => !url.startsWith(runtime.baseUrl) && !/^(data|blob):/.test(url);
      page.on('requestfailed', (request) => {
        if (isElsewhere(request.url()) && !/csp/i.test(request.failure()?.errorText ?? ''))
          elsewhere.push(`${request.url()} (${request.failure()?.errorText})`);
      });
      page.on('requestfinished', (request) => {
        if (isElsewhere(request.url())) elsewhere.push(request.url());
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const response = await page.goto(`${runtime.baseUrl}/docs`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      await page.waitForSelector('.menu-content', { timeout: 30_000 });
      // Page-side expressions as text: the tests' TypeScript has no DOM types.
      await page.waitForFunction("document.body.innerText.includes('Inkpress API')", undefined, {
        timeout: 30_000,
      });
      const text = String(await page.evaluate('document.body.innerText'));
      const missing = summaries.filter((summary) => !text.includes(summary));
      expect(missing).toEqual([]);
      expect(elsewhere).toEqual([]);
      expect(errors).toEqual([]);
      await page.screenshot({ path: path.join(os.tmpdir(), 'inkpress-docs.png') });
    } finally {
      await browser.close();
    }
  });
});
