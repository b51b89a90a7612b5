/**
 * Signed webhooks, black-box on the local stack (`npm start`'s runtime on a free port: API,
 * generation worker, webhook dispatcher and their queues on DynamoDB Local and moto): a receiver
 * on 127.0.0.1 gets `article.generated` and `article.published`, verified by the
 * `standardwebhooks` library with the secret the create call returned; a 500 brings the same
 * `webhook-id` again and the deliveries list shows both attempts; a 410 disables the endpoint.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createAccount } from '../../functions/core/accounts';
import { WEBHOOK_EVENT_TYPES } from '../../functions/core/webhooks/webhook';
import type { LocalRuntime } from '../../local/local-runtime';
import { startAttachedRuntime } from '../support/attached-runtime';
import * as deps from '../support/deps';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver';

let dataDir: string;
let runtime: LocalRuntime;
let receiver: WebhookReceiver;
let site: FakeWordPress;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'inkpress-webhooks-'));
  [receiver, site] = await Promise.all([startWebhookReceiver(), startFakeWordPress()]);
  runtime = await startAttachedRuntime({
    port: 0,
    dataDir,
    sweepSeconds: 0,
    firstSweepAfterMs: 60_000,
    pollWaitSeconds: 1,
    log: () => undefined,
  });
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await Promise.all([receiver?.close(), site?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

async function newToken(): Promise<string> {
  const { token } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Webhook test', credits: 200 },
  );
  return token;
}

async function api(token: string, method: string, pathname: string, body?: unknown) {
  const response = await fetch(`${runtime.baseUrl}${pathname}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  return { status: response.status, body: (await response.json()) as any };
}

async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = 40_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function createArticle(token: string, fields: Record<string, unknown> = {}): Promise<string> {
  const created = await api(token, 'POST', '/v1/articles/create', {
    keyword: 'cast iron care',
    h2_count: 2,
    ai_model: 'gpt-3.5-turbo',
    language: 'en',
    ...fields,
  });
  expect(created.status).toBe(202);
  return created.body.article_uuid;
}

function verified(request: ReceivedWebhook, secret: string) {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  // biome-ignore lint/suspicious/noExplicitAny: the payload is checked field by field
  return new Webhook(secret).verify(request.body, headers) as any;
}

describe('webhook endpoints', () => {
  it('creates one (JSON, urlencoded or multipart) with its secret shown once, lists, shows and deletes it', async () => {
    const token = await newToken();
    const created = await api(token, 'POST', '/v1/webhooks/create', {
      url: `${receiver.url}/crud`,
      events: ['article.generated', 'article.failed'],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: `${receiver.url}/crud`,
      events: ['article.generated', 'article.failed'],
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const uuid = created.body.data.uuid;

    const form = new FormData();
    form.append('url', `${receiver.url}/form`);
    form.append('events', 'website.unhealthy');
    form.append('events', 'website.recovered');
    const multipart = await fetch(`${runtime.baseUrl}/v1/webhooks/create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    });
    expect(multipart.status).toBe(201);
    expect(((await multipart.json()) as { data: { events: string[] } }).data.events).toEqual([
      'website.unhealthy',
      'website.recovered',
    ]);

    // PHP-style form lists: `events[]=...` is the list, one item included (not an unknown field).
    for (const body of ['events%5B%5D=article.published', 'events[0]=article.published']) {
      const urlencoded = await fetch(`${runtime.baseUrl}/v1/webhooks/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `url=${encodeURIComponent(`${receiver.url}/php`)}&${body}`,
      });
      const answer = (await urlencoded.json()) as { data: { uuid: string; events: string[] } };
      expect([urlencoded.status, answer.data.events]).toEqual([201, ['article.published']]);
      await api(token, 'PUT', `/v1/webhooks/${answer.data.uuid}/delete`);
    }

    const shown = await api(token, 'GET', `/v1/webhooks/${uuid}/show`);
    expect(shown.status).toBe(200);
    expect(shown.body.data.secret).toBeUndefined();
    expect(shown.body.data).toEqual({ ...created.body.data, secret: undefined });

    const listed = await api(token, 'GET', '/v1/webhooks/list');
    expect(listed.body.data.map((webhook: { uuid: string }) => webhook.uuid)).toContain(uuid);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');

    const deleted = await api(token, 'PUT', `/v1/webhooks/${uuid}/delete`);
    expect(deleted).toEqual({
      status: 200,
      body: { message: `The webhook ${receiver.url}/crud was deleted; nothing more is sent to it.` },
    });
    expect((await api(token, 'GET', `/v1/webhooks/${uuid}/show`)).status).toBe(404);
    expect((await api(await newToken(), 'GET', `/v1/webhooks/${uuid}/show`)).status).toBe(404);
  });

  it.each([
    [{}, 'url', 'The url field is required.'],
    [{ url: 'not a url' }, 'url', 'The url must be a valid URL (https://...).'],
    [{ url: 'ftp://127.0.0.1/x' }, 'url', 'The url must be an https:// address.'],
    [
      { url: 'http://user:secret@127.0.0.1/x' },
      'url',
      'The url may not contain a user name or password; verify the webhook-signature header instead.',
    ],
    [
      { url: 'http://127.0.0.1/x', events: ['article.deleted'] },
      'events',
      expect.stringContaining('"article.deleted" is not one'),
    ],
    [
      { url: 'http://127.0.0.1/x', events: [['article.generated']] },
      'events',
      expect.stringContaining('["article.generated"] is not one'),
    ],
    [{ url: 'http://127.0.0.1/x', events: [] }, 'events', expect.stringContaining('must not be empty')],
    [
      { url: 'http://127.0.0.1/x#frag' },
      'url',
      'The url may not contain a fragment (#): it is never sent to the receiver.',
    ],
    [{ url: 'http://127.0.0.1:0/x' }, 'url', 'The url may not use port 0.'],
  ])('answers 422 to %j', async (body, field, message) => {
    const token = await newToken();
    const response = await api(token, 'POST', '/v1/webhooks/create', body);
    expect(response.status).toBe(422);
    expect(response.body.errors[field]).toEqual([message]);
    expect((await api(token, 'GET', '/v1/webhooks/list')).body.data).toEqual([]);
  });

  it.each([
    [['', 'article.failed', ' '], ['article.failed']],
    [['', ' '], [...WEBHOOK_EVENT_TYPES]],
    [null, [...WEBHOOK_EVENT_TYPES]],
    ['', [...WEBHOOK_EVENT_TYPES]],
  ])('reads events %j as %j (blank items count as absent)', async (events, expected) => {
    const token = await newToken();
    const response = await api(token, 'POST', '/v1/webhooks/create', {
      url: `${receiver.url}/blank`,
      events,
    });
    expect(response.status).toBe(201);
    expect(response.body.data.events).toEqual(expected);
  });

  it('allows at most 10 per account', async () => {
    const token = await newToken();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        api(token, 'POST', '/v1/webhooks/create', { url: `${receiver.url}/cap-${index}` }),
      ),
    );
    expect(results.filter((result) => result.status === 201)).toHaveLength(10);
    const refused = results.filter((result) => result.status === 409);
    expect(refused).toHaveLength(2);
    expect(refused[0]?.body.message).toMatch(/at most 10 webhooks/);
    expect((await api(token, 'GET', '/v1/webhooks/list')).body.data).toHaveLength(10);
  });
});

describe('deliveries', () => {
  it('signs article.generated and article.published so that standardwebhooks verifies them', async () => {
    const token = await newToken();
    const hook = await api(token, 'POST', '/v1/webhooks/create', { url: `${receiver.url}/signed` });
    const secret: string = hook.body.data.secret;
    const website = await api(token, 'POST', '/v1/websites/create', {
      url: `${site.url}/signed`,
      login: 'inkpress',
      password: 'correct horse battery',
    });
    expect(website.status).toBe(201);
    const articleUuid = await createArticle(token, { website_uuid: website.body.data.uuid });

    const published = await eventually(
      () => receiver.requestsTo('/signed', 'article.published'),
      (requests) => requests.length > 0,
    );
    const [generatedRequest] = receiver.requestsTo('/signed', 'article.generated');
    if (!generatedRequest || !published[0])
      throw new Error('article.generated and article.published expected');
    expect(generatedRequest.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(generatedRequest.headers['content-type']).toBe('application/json');

    const generated = verified(generatedRequest, secret);
    expect(generated).toMatchObject({
      type: 'article.generated',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      data: { status: 'generated', data: { uuid: articleUuid, credits_used: expect.any(Number) } },
    });
    const publishedEvent = verified(published[0], secret);
    const shown = await api(token, 'GET', `/v1/articles/${articleUuid}/show`);
    expect(publishedEvent.data).toEqual(shown.body);
    expect(publishedEvent.data.data.publication.state).toBe('published');
    expect(published[0].headers['webhook-id']).not.toBe(generatedRequest.headers['webhook-id']);

    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(generatedRequest.body, {
        'webhook-id': String(generatedRequest.headers['webhook-id']),
        'webhook-timestamp': String(generatedRequest.headers['webhook-timestamp']),
        'webhook-signature': String(generatedRequest.headers['webhook-signature']),
      }),
    ).toThrow();
  });

  it('tries again with the same webhook-id after a 500, and lists both attempts', async () => {
    const token = await newToken();
    receiver.plan('/flaky', [500]);
    const hook = await api(token, 'POST', '/v1/webhooks/create', {
      url: `${receiver.url}/flaky`,
      events: 'article.generated',
    });
    await createArticle(token);
    const requests = await eventually(
      () => receiver.requestsTo('/flaky'),
      (all) => all.length >= 2,
    );
    expect(requests).toHaveLength(2);
    const [first, second] = requests as [ReceivedWebhook, ReceivedWebhook];
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(4_000);
    verified(second, hook.body.data.secret);

    const deliveries = await api(token, 'GET', `/v1/webhooks/${hook.body.data.uuid}/deliveries`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data).toEqual([
      {
        webhook_id: second.headers['webhook-id'],
        event: 'article.generated',
        attempt: 2,
        status_code: 200,
        error: null,
        result: 'succeeded',
        attempted_at: expect.any(String),
        next_attempt_at: null,
      },
      {
        webhook_id: first.headers['webhook-id'],
        event: 'article.generated',
        attempt: 1,
        status_code: 500,
        error: null,
        result: 'retrying',
        attempted_at: expect.any(String),
        next_attempt_at: expect.any(String),
      },
    ]);
    expect(deliveries.body.meta).toMatchObject({ current_page: 1, per_page: 20 });
  });

  it('disables the endpoint when the receiver answers 410 Gone', async () => {
    const token = await newToken();
    receiver.plan('/gone', [410]);
    const hook = await api(token, 'POST', '/v1/webhooks/create', { url: `${receiver.url}/gone` });
    const uuid = hook.body.data.uuid;
    await createArticle(token);
    const shown = await eventually(
      () => api(token, 'GET', `/v1/webhooks/${uuid}/show`),
      (response) => response.body.data.status === 'disabled',
    );
    expect(shown.body.data).toMatchObject({
      status: 'disabled',
      disabled_reason: 'The receiver answered 410 Gone.',
    });
    const [attempt] = (await api(token, 'GET', `/v1/webhooks/${uuid}/deliveries`)).body.data;
    expect(attempt).toMatchObject({ status_code: 410, result: 'failed', next_attempt_at: null });

    await createArticle(token);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(receiver.requestsTo('/gone')).toHaveLength(1);
    expect(shown.body.data.disabled_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    // Enabled again: events from now on are sent (those of the pause are not).
    const enabled = await api(token, 'POST', `/v1/webhooks/${uuid}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ status: 'enabled', disabled_reason: null, disabled_at: null });
    await createArticle(token);
    await eventually(
      () => receiver.requestsTo('/gone'),
      (requests) => requests.length === 2,
    );
    expect(
      (await api(token, 'POST', '/v1/webhooks/00000000-0000-4000-8000-000000000000/enable')).status,
    ).toBe(404);
  });

  it('rotates the secret: for 24 hours each delivery verifies with the old and the new secret', async () => {
    const token = await newToken();
    const hook = await api(token, 'POST', '/v1/webhooks/create', {
      url: `${receiver.url}/rotated`,
      events: ['article.generated'],
    });
    const rotated = await api(token, 'POST', `/v1/webhooks/${hook.body.data.uuid}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toMatchObject({
      uuid: hook.body.data.uuid,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      previous_secret_expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    expect(rotated.body.data.secret).not.toBe(hook.body.data.secret);
    expect(
      (await api(token, 'GET', `/v1/webhooks/${hook.body.data.uuid}/show`)).body.data.secret,
    ).toBeUndefined();

    await createArticle(token);
    const [request] = await eventually(
      () => receiver.requestsTo('/rotated', 'article.generated'),
      (requests) => requests.length > 0,
    );
    if (!request) throw new Error('article.generated expected');
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(request, hook.body.data.secret).type).toBe('article.generated');
    expect(verified(request, rotated.body.data.secret).type).toBe('article.generated');
  });

  it('sends article.publish_failed when the site rejects the post for good', async () => {
    const token = await newToken();
    await api(token, 'POST', '/v1/webhooks/create', {
      url: `${receiver.url}/publish-failed`,
      events: ['article.publish_failed', 'article.published'],
    });
    const website = await api(token, 'POST', '/v1/websites/create', {
      url: `${site.url}/rejects`,
      login: 'inkpress',
      password: 'correct horse battery',
    });
    site.postFailure = { status: 400, code: 'inkpress_invalid_body' };
    try {
      const articleUuid = await createArticle(token, { website_uuid: website.body.data.uuid });
      const [request] = await eventually(
        () => receiver.requestsTo('/publish-failed'),
        (requests) => requests.length > 0,
      );
      const event = JSON.parse(request?.body ?? '{}');
      expect(event).toMatchObject({
        type: 'article.publish_failed',
        data: { data: { uuid: articleUuid, publication: { state: 'failed' } } },
      });
    } finally {
      site.postFailure = undefined;
    }
  });

  it('sends website.unhealthy when a site stops answering, and website.recovered when it is back', async () => {
    const token = await newToken();
    await api(token, 'POST', '/v1/webhooks/create', {
      url: `${receiver.url}/health`,
      events: 'website.unhealthy,website.recovered',
    });
    const website = await api(token, 'POST', '/v1/websites/create', {
      url: `${site.url}/health`,
      login: 'inkpress',
      password: 'correct horse battery',
    });
    const uuid = website.body.data.uuid;
    await site.stop();
    try {
      expect((await api(token, 'POST', `/v1/websites/${uuid}/categories/refresh`)).status).toBe(502);
    } finally {
      await site.start();
    }
    expect((await api(token, 'POST', `/v1/websites/${uuid}/categories/refresh`)).status).toBe(200);
    const requests = await eventually(
      () => receiver.requestsTo('/health'),
      (all) => all.length >= 2,
    );
    const events = requests.map((request) => JSON.parse(request.body));
    expect(events.map((event) => [event.type, event.data.status.is_unreachable])).toEqual([
      ['website.unhealthy', 1],
      ['website.recovered', 0],
    ]);
    expect(events[1].data.data.uuid).toBe(uuid);
    // A second refresh of a healthy site changes nothing, so it sends nothing.
    expect((await api(token, 'POST', `/v1/websites/${uuid}/categories/refresh`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.requestsTo('/health')).toHaveLength(2);
  });
});
