/** Webhooks against the fakes: the endpoint limit, fan-out, signed attempts and their schedule. */

import { createWebhook } from '../../../functions/core/webhooks/create-webhook';
import {
  attemptDelivery,
  eventResendAt,
  eventWithBody,
  fanOut,
  newEvent,
  resendDueWebhooks,
} from '../../../functions/core/webhooks/deliver-webhooks';
import { deleteWebhook, listWebhooks } from '../../../functions/core/webhooks/manage-webhooks';
import {
  MAX_DELIVERY_ATTEMPTS,
  MAX_WEBHOOKS_PER_ACCOUNT,
  retryDelaySeconds,
} from '../../../functions/core/webhooks/webhook';
import { healthEvent } from '../../../functions/core/websites/website';
import { createFakes, type Fakes } from '../../support/fakes';
import { recordEvent } from '../../support/webhook-events';

const manage = (fakes: Fakes) => ({
  webhooks: fakes.webhooks,
  cipher: fakes.secretCipher,
  urls: fakes.receiverUrls,
  clock: fakes.clock,
});
const deliver = (fakes: Fakes) => ({
  webhooks: fakes.webhooks,
  queue: fakes.webhookQueue,
  clock: fakes.clock,
});
const attempt = (fakes: Fakes) => ({ ...deliver(fakes), cipher: fakes.secretCipher, sender: fakes.sender });

async function subscribed(fakes: Fakes, events?: string) {
  const accountId = await fakes.account(0);
  const created = await createWebhook(manage(fakes), accountId, {
    url: 'https://hooks.example.com/inkpress',
    ...(events ? { events } : {}),
  });
  return { accountId, webhookUuid: created.data.uuid, secret: created.data.secret };
}

describe('webhooks', () => {
  it(`keeps at most ${MAX_WEBHOOKS_PER_ACCOUNT} endpoints per account; deleting one frees a place`, async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    const created = [];
    for (let n = 0; n < MAX_WEBHOOKS_PER_ACCOUNT; n++) {
      created.push(await createWebhook(manage(fakes), accountId, { url: `https://hooks.example.com/${n}` }));
    }
    await expect(
      createWebhook(manage(fakes), accountId, { url: 'https://hooks.example.com/x' }),
    ).rejects.toThrow(`An account may have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks`);
    await deleteWebhook(manage(fakes), accountId, created[0]?.data.uuid);
    await createWebhook(manage(fakes), accountId, { url: 'https://hooks.example.com/x' });
    expect((await listWebhooks(fakes, accountId)).data).toHaveLength(MAX_WEBHOOKS_PER_ACCOUNT);
  });

  it.each([
    [
      'a control character inside',
      'https://hooks.example.com/h/c\u0001tl',
      'The url may not contain control characters.',
    ],
    [
      'a line break inside',
      'https://hooks.example.com/h/n\nl',
      'The url may not contain control characters.',
    ],
    [
      'a trailing control character',
      'https://hooks.example.com/h\u0001',
      'The url may not contain control characters.',
    ],
    [
      'a lone surrogate',
      'https://hooks.example.com/\uD800',
      'The url must be valid Unicode text (it contains a lone surrogate).',
    ],
  ])(
    'refuses a url with %s (never stores a different URL than the one sent)',
    async (_case, url, message) => {
      const fakes = createFakes();
      const accountId = await fakes.account(0);
      await expect(createWebhook(manage(fakes), accountId, { url })).rejects.toMatchObject({
        fieldErrors: { url: [message] },
      });
      expect((await listWebhooks(fakes, accountId)).data).toEqual([]);
    },
  );

  it('records nothing for an event no endpoint wants', async () => {
    const fakes = createFakes();
    const { accountId } = await subscribed(fakes, 'article.failed');
    expect(
      await recordEvent(deliver(fakes), accountId, 'article.generated', async () => ({})),
    ).toBeUndefined();
    expect(fakes.webhooks.events.size).toBe(0);
  });

  it('fans an event out once and delivers it signed with the endpoint’s secret', async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid, secret } = await subscribed(fakes);
    const eventId = await recordEvent(deliver(fakes), accountId, 'article.generated', async () => ({
      uuid: 'a',
    }));
    if (!eventId) throw new Error('no event');

    expect(await fanOut(deliver(fakes), { accountId, eventId })).toBe(1);
    expect(await fanOut(deliver(fakes), { accountId, eventId })).toBe(0);
    const key = { accountId, eventId, webhookUuid };
    expect(await attemptDelivery(attempt(fakes), key)).toBe('succeeded');
    expect(await attemptDelivery(attempt(fakes), key)).toBe('skipped');

    expect(fakes.sender.requests).toHaveLength(1);
    expect(fakes.sender.requests[0]).toMatchObject({ secrets: [secret], webhookId: eventId });
    expect(JSON.parse(fakes.sender.requests[0]?.payload ?? '{}')).toMatchObject({
      type: 'article.generated',
      data: { uuid: 'a' },
    });
  });

  it(`retries on the Standard Webhooks schedule and fails after ${MAX_DELIVERY_ATTEMPTS} attempts`, async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid } = await subscribed(fakes);
    const eventId = (await recordEvent(deliver(fakes), accountId, 'article.failed', async () => ({}))) ?? '';
    await fanOut(deliver(fakes), { accountId, eventId });
    const key = { accountId, eventId, webhookUuid };
    const outcomes: string[] = [];
    for (let n = 1; n <= MAX_DELIVERY_ATTEMPTS; n++) {
      fakes.sender.answer({ kind: 'answered', statusCode: 500 });
      outcomes.push(await attemptDelivery(attempt(fakes), key));
      fakes.time.advance(retryDelaySeconds(n + 1) * 1000);
    }
    expect(outcomes).toEqual([...Array(MAX_DELIVERY_ATTEMPTS - 1).fill('retry_scheduled'), 'failed']);
    expect((await fakes.webhooks.getDelivery(key))?.state).toBe('failed');
    expect(fakes.webhooks.attempts.map((a) => a.result)).toEqual([
      ...Array(MAX_DELIVERY_ATTEMPTS - 1).fill('retrying'),
      'failed',
    ]);
  });

  it('counts the next attempt from the end of one that timed out, as its delayed message does', async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid } = await subscribed(fakes);
    const eventId = (await recordEvent(deliver(fakes), accountId, 'article.failed', async () => ({}))) ?? '';
    await fanOut(deliver(fakes), { accountId, eventId });
    const key = { accountId, eventId, webhookUuid };
    const timingOut = {
      send: async () => {
        fakes.time.advance(10_000);
        return { kind: 'failed' as const, error: 'The receiver did not answer within 10 s.' };
      },
    };
    expect(await attemptDelivery({ ...attempt(fakes), sender: timingOut }, key)).toBe('retry_scheduled');
    const next = new Date(fakes.time.clock().getTime() + retryDelaySeconds(2) * 1000).toISOString();
    expect(fakes.webhooks.attempts.at(-1)?.nextAttemptAt).toBe(next);
    expect((await fakes.webhooks.getDelivery(key))?.nextAttemptAt).toBe(next);
  });

  it('lists an attempt answered with a redirect with its status and why it is not followed, and retries it', async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid } = await subscribed(fakes);
    const eventId = await recordEvent(deliver(fakes), accountId, 'article.generated', async () => ({}));
    if (!eventId) throw new Error('no event');
    await fanOut(deliver(fakes), { accountId, eventId });
    const error = 'The receiver answered with a redirect, which is not followed.';
    fakes.sender.answer({ kind: 'answered', statusCode: 302, error });

    expect(await attemptDelivery(attempt(fakes), { accountId, eventId, webhookUuid })).toBe(
      'retry_scheduled',
    );
    expect(await fakes.webhooks.listAttempts(accountId, webhookUuid, 10)).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 302, error, result: 'retrying' }),
    ]);
  });

  it('disables an endpoint that answers 410, and the sweeper resends only what is due', async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid } = await subscribed(fakes);
    const eventId = (await recordEvent(deliver(fakes), accountId, 'article.failed', async () => ({}))) ?? '';
    // The event's message was lost: the sweeper sends it again after two minutes.
    expect(await resendDueWebhooks(deliver(fakes))).toEqual({ events: 0, deliveries: 0 });
    fakes.time.advance(2 * 60_000);
    expect(await resendDueWebhooks(deliver(fakes))).toEqual({ events: 1, deliveries: 0 });
    await fanOut(deliver(fakes), { accountId, eventId });
    fakes.sender.answer({ kind: 'answered', statusCode: 410 });

    expect(await attemptDelivery(attempt(fakes), { accountId, eventId, webhookUuid })).toBe('disabled');
    expect((await fakes.webhooks.getEndpoint(accountId, webhookUuid))?.disabledReason).toBe(
      'The receiver answered 410 Gone.',
    );
  });

  it('sends an event whose producer died after storing it as it was stored: body and timestamp of its change', async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid } = await subscribed(fakes);
    const subject = { kind: 'article' as const, uuid: 'art-1' };
    const staged = await newEvent(deliver(fakes), accountId, 'article.generated', subject);
    if (!staged) throw new Error('the endpoint wants article.generated');
    const event = eventWithBody(staged, { uuid: 'art-1', status: 'generated' });
    // Stored with its change; the producer died before sending its message.
    await fakes.webhooks.putEvent(event, eventResendAt(event));

    fakes.time.advance(60_000);
    expect(await resendDueWebhooks(deliver(fakes))).toEqual({ events: 0, deliveries: 0 });
    fakes.time.advance(61_000);
    expect(await resendDueWebhooks(deliver(fakes))).toEqual({ events: 1, deliveries: 0 });
    expect(fakes.webhookQueue.sent.map((sent) => sent.message)).toEqual([
      { kind: 'event', accountId, eventId: event.eventId },
    ]);

    expect(await fanOut(deliver(fakes), { accountId, eventId: event.eventId })).toBe(1);
    expect(await attemptDelivery(attempt(fakes), { accountId, eventId: event.eventId, webhookUuid })).toBe(
      'succeeded',
    );
    expect(JSON.parse(fakes.sender.requests[0]?.payload ?? '{}')).toEqual({
      type: 'article.generated',
      // When the change was stored, not when the sweeper found it.
      timestamp: event.createdAt,
      data: { uuid: 'art-1', status: 'generated' },
    });
  });

  it('closes unsent an event stored without its body (an earlier version whose producer died): its record now may be a later state', async () => {
    const fakes = createFakes();
    const { accountId } = await subscribed(fakes, 'website.unhealthy');
    const event = await newEvent(deliver(fakes), accountId, 'website.unhealthy', {
      kind: 'website',
      uuid: 'w',
    });
    if (!event) throw new Error('the endpoint wants website.unhealthy');
    await fakes.webhooks.putEvent(event, eventResendAt(event));
    // Not fanned out without its body (a stray message finds nothing to send).
    expect(await fanOut(deliver(fakes), { accountId, eventId: event.eventId })).toBe(0);
    const closed: unknown[] = [];
    const resend = {
      ...deliver(fakes),
      onClosed: (key: unknown, reason: string) => closed.push([key, reason]),
    };
    fakes.time.advance(3 * 60_000);
    expect(await resendDueWebhooks(resend)).toEqual({ events: 0, deliveries: 0 });
    expect((await fakes.webhooks.getEvent(accountId, event.eventId))?.dispatchedAt).toBeDefined();
    expect(closed).toEqual([[{ accountId, eventId: event.eventId }, 'stored without its body']]);
    fakes.time.advance(3 * 60_000);
    expect(await resendDueWebhooks(resend)).toEqual({ events: 0, deliveries: 0 });
    expect(fakes.webhookQueue.sent).toEqual([]);
  });

  it('keeps an event that could not be read for the next sweep', async () => {
    const fakes = createFakes();
    const { accountId } = await subscribed(fakes);
    const eventId =
      (await recordEvent(deliver(fakes), accountId, 'article.generated', async () => ({}))) ?? '';
    fakes.webhookQueue.sent.length = 0;
    fakes.time.advance(3 * 60_000);
    const down = {
      ...deliver(fakes),
      webhooks: Object.assign(Object.create(fakes.webhooks), {
        getEvent: async () => {
          throw new Error('table unavailable');
        },
      }),
    };
    const unfinished: unknown[] = [];
    expect(
      await resendDueWebhooks({
        ...down,
        onUnfinished: (key, error) => unfinished.push([key, String(error)]),
      }),
    ).toEqual({ events: 0, deliveries: 0 });
    expect(unfinished).toEqual([[{ accountId, eventId }, 'Error: table unavailable']]);
    // Put off by the re-send time (it never holds newer events back), then sent.
    expect(await resendDueWebhooks(deliver(fakes))).toEqual({ events: 0, deliveries: 0 });
    fakes.time.advance(2 * 60_000);
    expect(await resendDueWebhooks(deliver(fakes))).toEqual({ events: 1, deliveries: 0 });
  });

  it('stores the event when the endpoints cannot be read (the change never waits on them); fan-out decides', async () => {
    const fakes = createFakes();
    const { accountId } = await subscribed(fakes, 'article.failed');
    const failing = {
      ...deliver(fakes),
      webhooks: Object.assign(Object.create(fakes.webhooks), {
        listEndpoints: async () => {
          throw new Error('webhooks table unavailable');
        },
      }),
    };
    const told: unknown[] = [];
    const event = await newEvent(
      { ...failing, onEndpointsUnknown: (error) => told.push(String(error)) },
      accountId,
      'article.generated',
      { kind: 'article', uuid: 'a' },
    );
    expect(event).toMatchObject({ accountId, type: 'article.generated' });
    expect(told).toEqual(['Error: webhooks table unavailable']);
    if (!event) throw new Error('an event');
    // No endpoint wants article.generated: fan-out sends it nowhere and closes it.
    await fakes.webhooks.putEvent(eventWithBody(event, {}), eventResendAt(event));
    expect(await fanOut(deliver(fakes), { accountId, eventId: event.eventId })).toBe(0);
    expect((await fakes.webhooks.getEvent(accountId, event.eventId))?.dispatchedAt).toBeDefined();
    expect(fakes.webhookQueue.sent).toEqual([]);
  });
});

describe('health events', () => {
  const flags = (loginIsUnauthorized: boolean, isUnreachable: boolean) => ({
    loginIsUnauthorized,
    isUnreachable,
  });

  it('reports a flag set on a healthy website, a change of what is wrong, and the last flag cleared', () => {
    expect(healthEvent(flags(false, false), flags(true, false))).toBe('website.unhealthy');
    expect(healthEvent(flags(false, false), flags(false, true))).toBe('website.unhealthy');
    // Unreachable, then the login refused (someone must act now): reported.
    expect(healthEvent(flags(false, true), flags(true, false))).toBe('website.unhealthy');
    expect(healthEvent(flags(true, false), flags(false, true))).toBe('website.unhealthy');
    expect(healthEvent(flags(true, false), flags(true, true))).toBe('website.unhealthy');
    expect(healthEvent(flags(true, true), flags(false, true))).toBe('website.unhealthy');
    // The same flags written again: nothing.
    expect(healthEvent(flags(true, false), flags(true, false))).toBeUndefined();
    expect(healthEvent(flags(false, true), flags(false, true))).toBeUndefined();
    expect(healthEvent(flags(true, true), flags(false, false))).toBe('website.recovered');
    expect(healthEvent(flags(false, true), flags(false, false))).toBe('website.recovered');
    expect(healthEvent(flags(false, false), flags(false, false))).toBeUndefined();
  });
});
