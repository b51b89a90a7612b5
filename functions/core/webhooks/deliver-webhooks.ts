/**
 * Events from the worker and the sweeper to the receivers, at least once, one `webhook-id` each:
 *
 * 1. `emitEvent` (producers): when the account has an endpoint for the type, the event is
 *    stored (the outbox, with its exact body) and an `event` message is sent. A lost message is
 *    re-sent by the sweeper from the outbox; producers never wait for a receiver.
 * 2. `fanOut` (dispatcher): one delivery per subscribed endpoint, each sent as a `delivery`
 *    message, then the event is marked dispatched.
 * 3. `attemptDelivery` (dispatcher): one signed POST under a lease (a duplicate message finds the
 *    attempt taken). 2xx: succeeded. 410: the endpoint is disabled. Otherwise the next attempt
 *    follows the schedule: a delayed message for waits the queue can carry (<= 15 min), the
 *    sweeper's index for longer ones; after the last attempt the delivery is failed.
 */
import { randomUUID } from 'node:crypto';
import type {
  DeliveryKey,
  EventKey,
  SecretCipher,
  WebhookMessage,
  WebhookQueue,
  WebhookSender,
  WebhookStore,
} from './ports';
import {
  DELIVERY_LEASE_MS,
  type DeliveryAttempt,
  isSubscribed,
  MAX_DELIVERY_ATTEMPTS,
  MAX_QUEUE_DELAY_SECONDS,
  RESEND_AFTER_MS,
  retryDelaySeconds,
  type WebhookEventType,
} from './webhook';

export interface WebhookDeliveryDeps {
  webhooks: WebhookStore;
  queue: WebhookQueue;
  clock: () => Date;
}

export interface AttemptDeps extends WebhookDeliveryDeps {
  cipher: SecretCipher;
  sender: WebhookSender;
}

/** New event ids: `msg_` and 32 hex digits, as Standard Webhooks ids look. */
export function newEventId(): string {
  return `msg_${randomUUID().replace(/-/g, '')}`;
}

/**
 * Records an event for the account's endpoints that want it; nothing when there is none.
 * `data` is read only then (the record as `show` returns it now).
 */
export async function emitEvent(
  deps: WebhookDeliveryDeps,
  accountId: string,
  type: WebhookEventType,
  data: () => Promise<unknown>,
): Promise<string | undefined> {
  const endpoints = await deps.webhooks.listEndpoints(accountId);
  if (!endpoints.some((endpoint) => isSubscribed(endpoint, type))) return undefined;
  const now = deps.clock();
  const eventId = newEventId();
  const payload = JSON.stringify({ type, timestamp: now.toISOString(), data: await data() });
  await deps.webhooks.putEvent(
    { accountId, eventId, type, payload, createdAt: now.toISOString() },
    new Date(now.getTime() + RESEND_AFTER_MS).toISOString(),
  );
  // If this send fails, the sweeper sends the stored event after RESEND_AFTER_MS.
  await deps.queue.send([{ message: { kind: 'event', accountId, eventId } }]).catch(() => undefined);
  return eventId;
}

/** One delivery per endpoint subscribed to the event, each sent for its first attempt. */
export async function fanOut(deps: WebhookDeliveryDeps, key: EventKey): Promise<number> {
  const event = await deps.webhooks.getEvent(key.accountId, key.eventId);
  if (!event || event.dispatchedAt) return 0;
  const now = deps.clock();
  const resendAt = new Date(now.getTime() + RESEND_AFTER_MS).toISOString();
  const endpoints = (await deps.webhooks.listEndpoints(key.accountId)).filter((endpoint) =>
    isSubscribed(endpoint, event.type),
  );
  const firstAttempts: { message: WebhookMessage }[] = [];
  for (const endpoint of endpoints) {
    const delivery = await deps.webhooks.ensureDelivery(
      {
        accountId: key.accountId,
        eventId: key.eventId,
        webhookUuid: endpoint.webhookUuid,
        type: event.type,
        state: 'pending',
        attempts: 0,
        nextAttemptAt: now.toISOString(),
        createdAt: now.toISOString(),
      },
      resendAt,
    );
    if (delivery.state === 'pending' && delivery.attempts === 0) {
      firstAttempts.push({
        message: {
          kind: 'delivery',
          accountId: key.accountId,
          eventId: key.eventId,
          webhookUuid: endpoint.webhookUuid,
        },
      });
    }
  }
  await deps.queue.send(firstAttempts);
  await deps.webhooks.markDispatched(key.accountId, key.eventId, now.toISOString());
  return firstAttempts.length;
}

export type AttemptOutcome = 'succeeded' | 'retry_scheduled' | 'failed' | 'disabled' | 'skipped';

export async function attemptDelivery(deps: AttemptDeps, key: DeliveryKey): Promise<AttemptOutcome> {
  const delivery = await deps.webhooks.getDelivery(key);
  if (delivery?.state !== 'pending') return 'skipped';
  const now = deps.clock();
  // Early: a duplicate of an earlier message; the one for this attempt (or the sweeper) comes later.
  if (delivery.nextAttemptAt && Date.parse(delivery.nextAttemptAt) > now.getTime() + 1_000) return 'skipped';
  const owner = randomUUID();
  const leaseUntil = new Date(now.getTime() + DELIVERY_LEASE_MS).toISOString();
  if (!(await deps.webhooks.leaseDelivery(delivery, owner, now.toISOString(), leaseUntil))) return 'skipped';

  const attempt = delivery.attempts + 1;
  const record = (fields: Pick<DeliveryAttempt, 'result'> & Partial<DeliveryAttempt>) =>
    deps.webhooks.recordAttempt({
      accountId: key.accountId,
      webhookUuid: key.webhookUuid,
      eventId: key.eventId,
      type: delivery.type,
      attempt,
      attemptedAt: now.toISOString(),
      ...fields,
    });

  const endpoint = await deps.webhooks.getEndpoint(key.accountId, key.webhookUuid);
  const event = await deps.webhooks.getEvent(key.accountId, key.eventId);
  if (!endpoint || endpoint.disabledAt || !event) {
    const error = !endpoint
      ? 'The webhook was deleted.'
      : endpoint.disabledAt
        ? 'The webhook is disabled.'
        : 'The event expired.';
    await record({ result: 'failed', error });
    await deps.webhooks.finishDelivery(delivery, owner, 'failed', attempt);
    return 'failed';
  }

  const secret = await deps.cipher.decrypt(endpoint.secretCiphertext, {
    accountId: key.accountId,
    webhookUuid: key.webhookUuid,
  });
  const result = await deps.sender.send({
    url: endpoint.url,
    secret,
    webhookId: key.eventId,
    timestamp: now,
    payload: event.payload,
  });
  const statusCode = result.kind === 'answered' ? result.statusCode : undefined;
  const error = result.kind === 'failed' ? result.error : undefined;
  const answer = { ...(statusCode !== undefined ? { statusCode } : {}), ...(error ? { error } : {}) };

  if (statusCode !== undefined && statusCode >= 200 && statusCode < 300) {
    await record({ result: 'succeeded', ...answer });
    await deps.webhooks.finishDelivery(delivery, owner, 'succeeded', attempt);
    return 'succeeded';
  }
  if (statusCode === 410) {
    await record({ result: 'failed', ...answer });
    await deps.webhooks.disableEndpoint(
      key.accountId,
      key.webhookUuid,
      now.toISOString(),
      'The receiver answered 410 Gone.',
    );
    await deps.webhooks.finishDelivery(delivery, owner, 'failed', attempt);
    return 'disabled';
  }
  if (attempt >= MAX_DELIVERY_ATTEMPTS) {
    await record({ result: 'failed', ...answer });
    await deps.webhooks.finishDelivery(delivery, owner, 'failed', attempt);
    return 'failed';
  }

  const delaySeconds = retryDelaySeconds(attempt + 1);
  // From the end of this attempt (a receiver that timed out took seconds), when the delayed
  // message below is sent: the time shown is the time of the next attempt.
  const nextAttemptAt = new Date(deps.clock().getTime() + delaySeconds * 1000);
  const byMessage = delaySeconds <= MAX_QUEUE_DELAY_SECONDS;
  // Sent by a delayed message: the sweeper only steps in if that message is lost.
  const resendAt = new Date(nextAttemptAt.getTime() + (byMessage ? RESEND_AFTER_MS : 0)).toISOString();
  await record({ result: 'retrying', ...answer, nextAttemptAt: nextAttemptAt.toISOString() });
  await deps.webhooks.scheduleRetry(delivery, owner, attempt, nextAttemptAt.toISOString(), resendAt);
  if (byMessage) {
    await deps.queue.send([{ message: { kind: 'delivery', ...key }, delaySeconds }]).catch(() => undefined);
  }
  return 'retry_scheduled';
}

/** Events and deliveries the sweeper sends per run and kind; the rest wait for the next run. */
export const RESEND_BATCH = 500;

/** Sweeper: sends again the events never dispatched and the deliveries whose attempt is due. */
export async function resendDueWebhooks(
  deps: WebhookDeliveryDeps,
  limit = RESEND_BATCH,
): Promise<{ events: number; deliveries: number }> {
  const now = deps.clock();
  const later = new Date(now.getTime() + RESEND_AFTER_MS).toISOString();
  const result = { events: 0, deliveries: 0 };
  for (const kind of ['event', 'delivery'] as const) {
    const due = await deps.webhooks.listDue(kind, now.toISOString(), limit);
    if (due.length === 0) continue;
    await deps.queue.send(due.map((key) => ({ message: { kind, ...key } as WebhookMessage })));
    for (const key of due) await deps.webhooks.postponeResend(kind, key, later);
    result[kind === 'event' ? 'events' : 'deliveries'] = due.length;
  }
  return result;
}
