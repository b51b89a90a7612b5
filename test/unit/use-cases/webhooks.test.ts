/** Webhooks against the fakes: the endpoint limit, fan-out, signed attempts and their schedule. */

import { createWebhook } from '../../../functions/core/webhooks/create-webhook';
import {
  attemptDelivery,
  emitEvent,
  fanOut,
  resendDueWebhooks,
} from '../../../functions/core/webhooks/deliver-webhooks';
import { deleteWebhook, listWebhooks } from '../../../functions/core/webhooks/manage-webhooks';
import {
  MAX_DELIVERY_ATTEMPTS,
  MAX_WEBHOOKS_PER_ACCOUNT,
  retryDelaySeconds,
} from '../../../functions/core/webhooks/webhook';
import { createFakes, type Fakes } from '../../support/fakes';

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
    expect(await emitEvent(deliver(fakes), accountId, 'article.generated', async () => ({}))).toBeUndefined();
    expect(fakes.webhooks.events.size).toBe(0);
  });

  it('fans an event out once and delivers it signed with the endpoint’s secret', async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid, secret } = await subscribed(fakes);
    const eventId = await emitEvent(deliver(fakes), accountId, 'article.generated', async () => ({
      uuid: 'a',
    }));
    if (!eventId) throw new Error('no event');

    expect(await fanOut(deliver(fakes), { accountId, eventId })).toBe(1);
    expect(await fanOut(deliver(fakes), { accountId, eventId })).toBe(0);
    const key = { accountId, eventId, webhookUuid };
    expect(await attemptDelivery(attempt(fakes), key)).toBe('succeeded');
    expect(await attemptDelivery(attempt(fakes), key)).toBe('skipped');

    expect(fakes.sender.requests).toHaveLength(1);
    expect(fakes.sender.requests[0]).toMatchObject({ secret, webhookId: eventId });
    expect(JSON.parse(fakes.sender.requests[0]?.payload ?? '{}')).toMatchObject({
      type: 'article.generated',
      data: { uuid: 'a' },
    });
  });

  it(`retries on the Standard Webhooks schedule and fails after ${MAX_DELIVERY_ATTEMPTS} attempts`, async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid } = await subscribed(fakes);
    const eventId = (await emitEvent(deliver(fakes), accountId, 'article.failed', async () => ({}))) ?? '';
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
    const eventId = (await emitEvent(deliver(fakes), accountId, 'article.failed', async () => ({}))) ?? '';
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

  it('disables an endpoint that answers 410, and the sweeper resends only what is due', async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid } = await subscribed(fakes);
    const eventId = (await emitEvent(deliver(fakes), accountId, 'article.failed', async () => ({}))) ?? '';
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
});
