/**
 * The OpenAPI document, black-box on the local stack: served without a token, valid OpenAPI 3.1
 * (swagger-parser), covering every route of the route table and nothing else, and describing
 * what the handlers really answer: every route is called (successes and errors) and each body is
 * validated against the document's response schema for its status.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createAccount } from '../../functions/core/accounts';
import { routes } from '../../functions/routes';
import type { LocalRuntime } from '../../local/local-runtime';
import { startAttachedRuntime } from '../support/attached-runtime';
import * as deps from '../support/deps';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { type ResponseValidator, responseValidator } from '../support/openapi-validator';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

let dataDir: string;
let runtime: LocalRuntime;
let site: FakeWordPress;
let receiver: WebhookReceiver;
let document: Record<string, unknown>;
let validator: ResponseValidator;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-openapi-'));
  [site, receiver] = await Promise.all([startFakeWordPress(), startWebhookReceiver()]);
  runtime = await startAttachedRuntime({
    port: 0,
    dataDir,
    sweepSeconds: 0,
    firstSweepAfterMs: 60_000,
    pollWaitSeconds: 1,
    log: () => undefined,
  });
  const response = await fetch(`${runtime.baseUrl}/v1/openapi.json`);
  expect(response.status).toBe(200);
  document = (await response.json()) as Record<string, unknown>;
  validator = responseValidator(document);
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await Promise.all([site?.close(), receiver?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

/** Calls the API and checks the answer against the document (`route` is the route table path). */
async function call(
  token: string | undefined,
  method: string,
  route: string,
  params: Record<string, string> = {},
  body?: Record<string, unknown>,
) {
  let pathname = route;
  for (const [name, value] of Object.entries(params)) pathname = pathname.replace(`{${name}}`, value);
  const response = await fetch(`${runtime.baseUrl}${pathname}`, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json()) as Record<string, unknown>;
  validator.check(method, route.split('?')[0] ?? route, response.status, json);
  // biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field below
  return { status: response.status, body: json as any };
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document with the bearer scheme and the webhook events', async () => {
    await SwaggerParser.validate(structuredClone(document) as never);
    expect(document.openapi).toBe('3.1.0');
    expect(document.components).toMatchObject({
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(document.webhooks as object).sort()).toEqual(
      [
        'article.failed',
        'article.outline_ready',
        'article.generated',
        'article.publish_failed',
        'article.published',
        'batch.completed',
        'website.recovered',
        'website.unhealthy',
      ].sort(),
    );
  });

  it('has every route of the route table, and nothing else', () => {
    const paths = document.paths as Record<string, Record<string, unknown>>;
    const documented = Object.entries(paths).flatMap(([route, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`),
    );
    const routed = routes.flatMap((route) => route.methods.map((method) => `${method} ${route.path}`));
    expect(documented.sort()).toEqual(routed.sort());
  });

  it('takes the Idempotency-Key header on the two create routes, and no token on the public ones', () => {
    const paths = document.paths as Record<
      string,
      Record<string, { parameters?: { name: string; in: string }[]; security?: unknown[] }>
    >;
    for (const route of ['/v1/articles/create', '/v1/websites/create']) {
      expect(paths[route]?.post?.parameters).toContainEqual(
        expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
      );
    }
    expect(paths['/v1/openapi.json']?.get?.security).toEqual([]);
    expect(paths['/docs']?.get?.security).toEqual([]);
    expect(paths['/v1/languages']?.get?.security).toBeUndefined();
  });

  it('requires a request body only where an empty one is refused (the queue listing takes none)', () => {
    const paths = document.paths as Record<string, Record<string, { requestBody?: { required?: boolean } }>>;
    const required = Object.fromEntries(
      Object.entries(paths).flatMap(([route, item]) =>
        Object.entries(item).flatMap(([method, operation]) =>
          operation.requestBody ? [[`${method.toUpperCase()} ${route}`, operation.requestBody.required]] : [],
        ),
      ),
    );
    expect(required).toEqual({
      'POST /v1/articles/batch': true,
      'POST /v1/articles/create': true,
      'POST /v1/websites/create': true,
      'POST /v1/websites/check': true,
      'PUT /v1/websites/{website_uuid}/update': true,
      // An empty profile is a profile (PUT replaces it).
      'PUT /v1/websites/{website_uuid}/profile': false,
      'POST /v1/webhooks/create': true,
      'POST /v1/articles/queue': false,
      'POST /v1/articles/{article_uuid}/outline': true,
    });
  });
});

describe('real answers of every route fit the document', () => {
  it('refuses a body the document does not describe (the check can fail)', () => {
    const website = {
      data: {
        uuid: '6f1c2a9e-8b3d-4c5e-9a7f-1e2d3c4b5a69',
        url: 'https://a',
        total_credits_used: 0,
        articles_count: 0,
        categories_count: 0,
        created_at: null,
        posts_indexed: 0,
        indexed_at: null,
        index_supported: 1,
        timezone: 'Europe/Paris',
      },
      status: { login_is_unauthorized: 0, is_unreachable: 0 },
    };
    const route = '/v1/websites/{website_uuid}/show';
    expect(() => validator.check('GET', route, 200, website)).not.toThrow();
    expect(() => validator.check('GET', route, 200, { ...website, password: 'secret' })).toThrow(
      /does not match/,
    );
    expect(() =>
      validator.check('GET', route, 200, { ...website, status: { is_unreachable: true } }),
    ).toThrow(/does not match/);
    expect(() => validator.check('GET', route, 201, website)).toThrow(/does not list/);
  });

  it('from registration to a published article, with the account, usage and webhook calls', async () => {
    const { token } = await createAccount(
      { accounts: deps.accountStore(), tokens: deps.tokenStore() },
      { name: 'OpenAPI test', credits: 100 },
    );
    const { token: brokeToken } = await createAccount(
      { accounts: deps.accountStore(), tokens: deps.tokenStore() },
      { name: 'No credits', credits: 0 },
    );

    expect((await call(token, 'GET', '/v1/languages')).status).toBe(200);
    expect((await call(undefined, 'GET', '/v1/languages')).status).toBe(401);

    const website = await call(
      token,
      'POST',
      '/v1/websites/create',
      {},
      {
        url: `${site.url}/openapi`,
        login: 'inkpress',
        password: 'correct horse battery',
      },
    );
    expect(website.status).toBe(201);
    const websiteUuid = website.body.data.uuid;
    expect((await call(token, 'POST', '/v1/websites/create', {}, { url: '' })).status).toBe(422);
    // Another account (refused logins count toward each account's cap per site and login).
    const checked = await call(
      brokeToken,
      'POST',
      '/v1/websites/check',
      {},
      { url: `${site.url}/openapi`, login: 'nobody', password: 'wrong' },
    );
    expect(checked.status).toBe(200);
    expect(checked.body.data.problems[0].code).toBe('login_refused');
    const refused = await call(
      brokeToken,
      'POST',
      '/v1/websites/create',
      {},
      { url: `${site.url}/openapi-refused`, login: 'nobody', password: 'wrong' },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.problems[0].code).toBe('login_refused');
    expect((await call(token, 'POST', '/v1/websites/check', {}, { url: '' })).status).toBe(422);
    expect((await call(token, 'GET', '/v1/websites/list?page=1')).status).toBe(200);
    expect((await call(token, 'GET', '/v1/websites/list?page=0')).status).toBe(422);
    const show = (uuid: string) =>
      call(token, 'GET', '/v1/websites/{website_uuid}/show', { website_uuid: uuid });
    expect((await show(websiteUuid)).status).toBe(200);
    expect((await show('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect(
      (await call(token, 'GET', '/v1/websites/{website_uuid}/categories', { website_uuid: websiteUuid }))
        .status,
    ).toBe(200);
    expect(
      (
        await call(token, 'POST', '/v1/websites/{website_uuid}/categories/refresh', {
          website_uuid: websiteUuid,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(token, 'POST', '/v1/websites/{website_uuid}/index/refresh', {
          website_uuid: websiteUuid,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(
          token,
          'PUT',
          '/v1/websites/{website_uuid}/update',
          { website_uuid: websiteUuid },
          {
            login: 'inkpress',
            password: 'correct horse battery',
          },
        )
      ).status,
    ).toBe(200);

    const profile = (body?: Record<string, unknown>) =>
      call(
        token,
        body ? 'PUT' : 'GET',
        '/v1/websites/{website_uuid}/profile',
        { website_uuid: websiteUuid },
        body,
      );
    expect(
      (await profile({ voice: 'Plain', banned_phrases: ['delve'], defaults: { faq_count: 1 } })).status,
    ).toBe(200);
    expect((await profile({ defaults: { h2_count: 11 } })).status).toBe(422);
    expect((await profile()).body.data.defaults).toEqual({ faq_count: 1 });

    const hook = await call(token, 'POST', '/v1/webhooks/create', {}, { url: `${receiver.url}/openapi` });
    expect(hook.status).toBe(201);
    const webhookUuid = hook.body.data.uuid;
    expect(
      (await call(token, 'POST', '/v1/webhooks/{webhook_uuid}/rotate-secret', { webhook_uuid: webhookUuid }))
        .status,
    ).toBe(200);
    expect(
      (await call(token, 'POST', '/v1/webhooks/{webhook_uuid}/enable', { webhook_uuid: webhookUuid })).status,
    ).toBe(200);

    const created = await call(
      token,
      'POST',
      '/v1/articles/create',
      {},
      {
        keyword: 'openapi',
        h2_count: 2,
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
        website_uuid: websiteUuid,
      },
    );
    expect(created.status).toBe(202);
    const articleUuid = created.body.article_uuid;
    expect((await call(token, 'POST', '/v1/articles/create', {}, { keyword: '' })).status).toBe(422);
    expect((await call(token, 'GET', '/v1/articles/queue')).status).toBe(200);
    expect((await call(token, 'POST', '/v1/articles/queue', {}, { page: 1 })).status).toBe(200);
    expect((await call(token, 'POST', '/v1/articles/queue')).status).toBe(200);
    const showArticle = () =>
      call(token, 'GET', '/v1/articles/{article_uuid}/show', { article_uuid: articleUuid });
    const published = await eventually(
      showArticle,
      (answer) => answer.body.data.publication?.state === 'published',
    );
    expect(published.body.status).toBe('generated');
    expect((await call(token, 'GET', '/v1/articles/list')).status).toBe(200);
    expect(
      (await call(token, 'POST', '/v1/articles/{article_uuid}/retry', { article_uuid: articleUuid })).status,
    ).toBe(409);
    expect(
      (await call(token, 'POST', '/v1/articles/{article_uuid}/cancel', { article_uuid: articleUuid })).status,
    ).toBe(409);
    expect(
      (
        await call(
          token,
          'POST',
          '/v1/articles/{article_uuid}/outline',
          { article_uuid: articleUuid },
          { title: 'T', headings: ['a', 'b'] },
        )
      ).status,
    ).toBe(409);

    const waiting = await call(
      brokeToken,
      'POST',
      '/v1/articles/create',
      {},
      {
        keyword: 'no credits',
        h2_count: 1,
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
      },
    );
    const waitingShow = await call(brokeToken, 'GET', '/v1/articles/{article_uuid}/show', {
      article_uuid: waiting.body.article_uuid,
    });
    expect(waitingShow.body.status).toBe('not_enough_credits');
    const cancelled = await call(brokeToken, 'POST', '/v1/articles/{article_uuid}/cancel', {
      article_uuid: waiting.body.article_uuid,
    });
    expect(cancelled.status).toBe(200);

    const batch = await call(
      token,
      'POST',
      '/v1/articles/batch',
      {},
      {
        items: [{ keyword: 'batch one' }, { keyword: 'batch two' }, { keyword: '' }],
        defaults: { h2_count: 1, ai_model: 'gpt-3.5-turbo', language: 'en', website_uuid: websiteUuid },
        schedule: { start: '2026-03-28', every: '1d', at: '09:00', timezone: 'Europe/Paris' },
        partial: true,
      },
    );
    expect(batch.status).toBe(202);
    expect((await call(token, 'POST', '/v1/articles/batch', {}, { items: [{ keyword: '' }] })).status).toBe(
      422,
    );
    expect((await call(token, 'GET', '/v1/batches')).status).toBe(200);
    expect(
      (await call(token, 'GET', '/v1/batches/{batch_uuid}', { batch_uuid: batch.body.batch_uuid })).status,
    ).toBe(200);

    expect((await call(token, 'GET', '/v1/account')).status).toBe(200);
    expect((await call(token, 'GET', '/v1/account/usage')).status).toBe(200);
    expect((await call(token, 'GET', '/v1/account/usage?from=2026-01-02&to=2026-01-01')).status).toBe(422);

    await eventually(
      async () => receiver.requestsTo('/openapi', 'article.published'),
      (requests) => requests.length > 0,
    );
    expect((await call(token, 'GET', '/v1/webhooks/list')).status).toBe(200);
    expect(
      (await call(token, 'GET', '/v1/webhooks/{webhook_uuid}/show', { webhook_uuid: webhookUuid })).status,
    ).toBe(200);
    const deliveries = await call(token, 'GET', '/v1/webhooks/{webhook_uuid}/deliveries', {
      webhook_uuid: webhookUuid,
    });
    expect(deliveries.body.data.length).toBeGreaterThanOrEqual(2);
    expect((await call(token, 'POST', '/v1/webhooks/create', {}, { url: 'nope' })).status).toBe(422);
    expect(
      (await call(token, 'PUT', '/v1/webhooks/{webhook_uuid}/delete', { webhook_uuid: webhookUuid })).status,
    ).toBe(200);

    expect(
      (await call(token, 'PUT', '/v1/websites/{website_uuid}/delete', { website_uuid: websiteUuid })).status,
    ).toBe(200);
    expect((await call(undefined, 'GET', '/v1/openapi.json')).status).toBe(200);

    const docs = await fetch(`${runtime.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);

    // Every route answered at least once, and was checked against the document.
    const answered = new Set([...validator.checked].map((entry) => entry.split(' ').slice(0, 2).join(' ')));
    const expected = routes
      .filter((route) => route.name !== 'DocsPage')
      .flatMap((route) => route.methods.map((method) => `${method} ${route.path}`));
    expect(expected.filter((entry) => !answered.has(entry))).toEqual([]);
  }, 90_000);
});
