/**
 * Webhook endpoints that heal or get disabled: 5 days of nothing but failed attempts disable an
 * endpoint (shown in show and list, nothing more sent) until it is enabled; a rotated secret
 * signs deliveries beside the new one for 24 hours; deployed, receivers listen on port 443.
 */
import { ReceiverUrlGuard } from '../../../functions/adapters/webhooks/receiver-url-guard';
import { createWebhook } from '../../../functions/core/webhooks/create-webhook';
import { attemptDelivery, fanOut } from '../../../functions/core/webhooks/deliver-webhooks';
import {
  enableWebhook,
  listWebhooks,
  rotateWebhookSecret,
  showWebhook,
} from '../../../functions/core/webhooks/manage-webhooks';
import { FAILING_DISABLED_REASON } from '../../../functions/core/webhooks/webhook';
import { toWireTime } from '../../../functions/core/wire';
import { createFakes, type Fakes } from '../../support/fakes';
import { recordEvent } from '../../support/webhook-events';

const DAY = 24 * 3600_000;

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

async function subscribed(fakes: Fakes) {
  const accountId = await fakes.account(0);
  const created = await createWebhook(manage(fakes), accountId, {
    url: 'https://hooks.example.com/inkpress',
  });
  return { accountId, webhookUuid: created.data.uuid, secret: created.data.secret };
}

/** A new event fanned out and its first attempt made (the receiver answers what it was told). */
async function deliverOne(fakes: Fakes, accountId: string, webhookUuid: string) {
  const eventId = await recordEvent(deliver(fakes), accountId, 'article.generated', async () => ({}));
  if (!eventId) return { fannedOut: 0 };
  const fannedOut = await fanOut(deliver(fakes), { accountId, eventId });
  if (fannedOut === 0) return { fannedOut };
  return { fannedOut, outcome: await attemptDelivery(attempt(fakes), { accountId, eventId, webhookUuid }) };
}

describe('an endpoint that fails every attempt', () => {
  it('is disabled after 5 days, shows it, gets nothing more, and resumes when enabled', async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid } = await subscribed(fakes);
    fakes.sender.answer({ kind: 'answered', statusCode: 500 });
    expect((await deliverOne(fakes, accountId, webhookUuid)).outcome).toBe('retry_scheduled');
    fakes.time.advance(5 * DAY - 1000);
    fakes.sender.answer({ kind: 'answered', statusCode: 503 });
    expect((await deliverOne(fakes, accountId, webhookUuid)).outcome).toBe('retry_scheduled');
    fakes.time.advance(1000);
    fakes.sender.answer({ kind: 'failed', error: 'timeout' });

    expect((await deliverOne(fakes, accountId, webhookUuid)).outcome).toBe('disabled');

    const disabledAt = toWireTime(fakes.clock());
    const expected = {
      status: 'disabled',
      disabled_reason: FAILING_DISABLED_REASON,
      disabled_at: disabledAt,
    };
    expect((await showWebhook(fakes, accountId, webhookUuid)).data).toMatchObject(expected);
    expect((await listWebhooks(fakes, accountId)).data[0]).toMatchObject(expected);
    // Nothing more is sent to it.
    const sent = fakes.sender.requests.length;
    expect((await deliverOne(fakes, accountId, webhookUuid)).fannedOut).toBe(0);
    expect(fakes.sender.requests).toHaveLength(sent);

    const enabled = await enableWebhook(fakes, accountId, webhookUuid);
    expect(enabled.data).toMatchObject({ status: 'enabled', disabled_reason: null, disabled_at: null });
    expect((await deliverOne(fakes, accountId, webhookUuid)).outcome).toBe('succeeded');
    // Its streak starts again: one failure after enabling does not disable it.
    fakes.sender.answer({ kind: 'answered', statusCode: 500 });
    expect((await deliverOne(fakes, accountId, webhookUuid)).outcome).toBe('retry_scheduled');
  });

  it('is not disabled when an attempt succeeded within the 5 days', async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid } = await subscribed(fakes);
    fakes.sender.answer({ kind: 'answered', statusCode: 500 });
    await deliverOne(fakes, accountId, webhookUuid);
    fakes.time.advance(3 * DAY);
    expect((await deliverOne(fakes, accountId, webhookUuid)).outcome).toBe('succeeded');
    fakes.time.advance(3 * DAY);
    fakes.sender.answer({ kind: 'answered', statusCode: 500 });

    expect((await deliverOne(fakes, accountId, webhookUuid)).outcome).toBe('retry_scheduled');
    expect((await showWebhook(fakes, accountId, webhookUuid)).data.status).toBe('enabled');
  });
});

describe('a rotated secret', () => {
  it('signs beside the new one for 24 hours, then only the new one signs', async () => {
    const fakes = createFakes();
    const { accountId, webhookUuid, secret } = await subscribed(fakes);

    const rotated = await rotateWebhookSecret(manage(fakes), accountId, webhookUuid);

    expect(rotated.data.secret).toMatch(/^whsec_/);
    expect(rotated.data.secret).not.toBe(secret);
    expect(rotated.data.previous_secret_expires_at).toBe(toWireTime(new Date(fakes.clock().getTime() + DAY)));
    await deliverOne(fakes, accountId, webhookUuid);
    expect(fakes.sender.requests.at(-1)?.secrets).toEqual([rotated.data.secret, secret]);
    fakes.time.advance(DAY);
    await deliverOne(fakes, accountId, webhookUuid);
    expect(fakes.sender.requests.at(-1)?.secrets).toEqual([rotated.data.secret]);
  });
});

describe('receiver URLs when deployed (no private addresses)', () => {
  const guard = new ReceiverUrlGuard({
    allowPrivate: false,
    resolve: async () => [{ address: '93.184.216.34', family: 4 }],
  });

  it('use port 443 only', async () => {
    expect(await guard.check(new URL('https://hooks.example.com/in'))).toBe('ok');
    expect(await guard.check(new URL('https://hooks.example.com:443/in'))).toBe('ok');
    expect(await guard.check(new URL('https://hooks.example.com:8443/in'))).toBe('https_required');
    expect(await guard.check(new URL('http://hooks.example.com/in'))).toBe('https_required');
  });

  it('are refused with a 422 naming the rule', async () => {
    const fakes = createFakes();
    const accountId = await fakes.account(0);
    await expect(
      createWebhook({ ...manage(fakes), urls: guard }, accountId, {
        url: 'https://hooks.example.com:8443/in',
      }),
    ).rejects.toThrow('The url must be an https:// address on port 443 (the default).');
  });
});
