/**
 * Events from the worker, the sweeper and the website routes to the receivers, at least once,
 * one `webhook-id` each:
 *
 * 1. `newEvent` (producers): when the account has an endpoint for the type, the event to store
 *    in the same transaction as the change it reports (the outbox), with its body already in it
 *    (`eventWithBody`: the record as that transaction leaves it, presented as `show` presents
 *    it), so no later state can reach it. After the commit, `sendRecordedEvent` sends an `event`
 *    message; a producer that died before that, or a lost message, is covered by the sweeper
 *    (`resendDueWebhooks`), which sends the stored event as it is. Producers never wait for a
 *    receiver.
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
  type EventSubject,
  FAILING_DISABLED_REASON,
  failedTooLong,
  isSubscribed,
  MAX_DELIVERY_ATTEMPTS,
  MAX_QUEUE_DELAY_SECONDS,
  RESEND_AFTER_MS,
  retryDelaySeconds,
  type WebhookEndpoint,
  type WebhookEvent,
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

/** When the sweeper sends a stored event again if it was never dispatched. */
export function eventResendAt(event: Pick<WebhookEvent, 'createdAt'>): string {
  return new Date(Date.parse(event.createdAt) + RESEND_AFTER_MS).toISOString();
}

/**
 * The event reporting a change to `subject`, to store with that change; undefined when no
 * endpoint of the account wants `type`.
 */
export async function newEvent(
  deps: Pick<WebhookDeliveryDeps, 'webhooks' | 'clock'> & { onEndpointsUnknown?: (error: unknown) => void },
  accountId: string,
  type: WebhookEventType,
  subject: EventSubject,
): Promise<WebhookEvent | undefined> {
  const wanted = await deps.webhooks.listEndpoints(accountId).then(
    (endpoints) => endpoints.some((endpoint) => isSubscribed(endpoint, type)),
    (error: unknown) => {
      // The change must not wait on the webhooks table: store the event all the same (fan-out
      // finds no endpoint for it if none wants it).
      deps.onEndpointsUnknown?.(error);
      return true;
    },
  );
  if (!wanted) return undefined;
  return { accountId, eventId: newEventId(), type, subject, createdAt: deps.clock().toISOString() };
}

/**
 * `event` with its body: `{"type","timestamp","data"}`, `data` the record as the change that
 * produced the event leaves it (as `show` presents it), `timestamp` when the change was stored.
 */
export function eventWithBody(event: WebhookEvent, data: unknown): WebhookEvent {
  return { ...event, payload: JSON.stringify({ type: event.type, timestamp: event.createdAt, data }) };
}

/** After the change and its event (with its body) were stored: the message that fans it out. */
export async function sendRecordedEvent(
  deps: Pick<WebhookDeliveryDeps, 'queue'>,
  event: WebhookEvent,
): Promise<void> {
  if (event.payload === undefined) return;
  // If this send fails, the sweeper sends the stored event after RESEND_AFTER_MS.
  await deps.queue
    .send([{ message: { kind: 'event', accountId: event.accountId, eventId: event.eventId } }])
    .catch(() => undefined);
}

/** One delivery per endpoint subscribed to the event, each sent for its first attempt. */
export async function fanOut(deps: WebhookDeliveryDeps, key: EventKey): Promise<number> {
  const event = await deps.webhooks.getEvent(key.accountId, key.eventId);
  // Without a body: stored by a version before bodies went into the transaction (the sweeper closes it).
  if (!event || event.dispatchedAt || event.payload === undefined) return 0;
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
  if (!endpoint || endpoint.disabledAt || event?.payload === undefined) {
    const error = !endpoint
      ? 'The webhook was deleted.'
      : endpoint.disabledAt
        ? 'The webhook is disabled.'
        : 'The event expired.';
    await record({ result: 'failed', error });
    await deps.webhooks.finishDelivery(delivery, owner, 'failed', attempt);
    return 'failed';
  }

  const result = await deps.sender.send({
    url: endpoint.url,
    secrets: await signingSecrets(deps, endpoint, now),
    webhookId: key.eventId,
    timestamp: now,
    payload: event.payload,
  });
  const statusCode = result.kind === 'answered' ? result.statusCode : undefined;
  const error = result.error;
  const answer = { ...(statusCode !== undefined ? { statusCode } : {}), ...(error ? { error } : {}) };

  if (statusCode !== undefined && statusCode >= 200 && statusCode < 300) {
    await record({ result: 'succeeded', ...answer });
    await deps.webhooks.finishDelivery(delivery, owner, 'succeeded', attempt);
    if (endpoint.failingSince !== undefined) await deps.webhooks.markHealthy(key.accountId, key.webhookUuid);
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
  if (failedTooLong(endpoint, now)) {
    await record({ result: 'failed', ...answer });
    await deps.webhooks.disableEndpoint(
      key.accountId,
      key.webhookUuid,
      now.toISOString(),
      FAILING_DISABLED_REASON,
    );
    await deps.webhooks.finishDelivery(delivery, owner, 'failed', attempt);
    return 'disabled';
  }
  if (endpoint.failingSince === undefined) {
    await deps.webhooks.markFailing(key.accountId, key.webhookUuid, now.toISOString());
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

/** The endpoint's secret, and the one before it for 24 hours after a rotation: each signs the attempt. */
async function signingSecrets(deps: AttemptDeps, endpoint: WebhookEndpoint, now: Date): Promise<string[]> {
  const context = { accountId: endpoint.accountId, webhookUuid: endpoint.webhookUuid };
  const secrets = [await deps.cipher.decrypt(endpoint.secretCiphertext, context)];
  if (
    endpoint.previousSecretCiphertext !== undefined &&
    endpoint.previousSecretUntil !== undefined &&
    endpoint.previousSecretUntil > now.toISOString()
  ) {
    secrets.push(await deps.cipher.decrypt(endpoint.previousSecretCiphertext, context));
  }
  return secrets;
}

/** Events and deliveries the sweeper sends per run and kind; the rest wait for the next run. */
export const RESEND_BATCH = 500;

export interface EventResendDeps extends WebhookDeliveryDeps {
  /** Told when an event could not be read now (it is tried again later), e.g. to log it. */
  onUnfinished?: (event: EventKey, error: unknown) => void;
  /** Told when an event is closed without being sent (it was stored without its body). */
  onClosed?: (event: EventKey, reason: string) => void;
}

/**
 * Sweeper: sends again the events never dispatched (each as it was stored, with the body its
 * change's transaction gave it) and the deliveries whose attempt is due.
 */
export async function resendDueWebhooks(
  deps: EventResendDeps,
  limit = RESEND_BATCH,
  signal?: AbortSignal,
): Promise<{ events: number; deliveries: number }> {
  const now = deps.clock();
  const later = new Date(now.getTime() + RESEND_AFTER_MS).toISOString();
  const result = { events: 0, deliveries: 0 };
  for (const kind of ['event', 'delivery'] as const) {
    if (signal?.aborted) break;
    const due = await deps.webhooks.listDue(kind, now.toISOString(), limit);
    const ready = kind === 'event' ? await withBodies(deps, due) : due;
    if (ready.length === 0) continue;
    await deps.queue.send(ready.map((key) => ({ message: { kind, ...key } as WebhookMessage })));
    for (const key of ready) await deps.webhooks.postponeResend(kind, key, later);
    result[kind === 'event' ? 'events' : 'deliveries'] = ready.length;
  }
  return result;
}

/**
 * The due events that have their body. One stored without it (by a version before bodies went
 * into the change's transaction, whose producer died before writing it) is closed unsent: its
 * record can only be read as it is now, which may be a later state than the event's. One that
 * cannot be read now is told to `onUnfinished` and put off by the re-send time, so that it never
 * holds newer ones back.
 */
async function withBodies(deps: EventResendDeps, due: EventKey[]): Promise<EventKey[]> {
  const ready: EventKey[] = [];
  const later = new Date(deps.clock().getTime() + RESEND_AFTER_MS).toISOString();
  for (const key of due) {
    try {
      const event = await deps.webhooks.getEvent(key.accountId, key.eventId);
      if (!event) continue;
      if (event.payload !== undefined) {
        ready.push(key);
        continue;
      }
      await deps.webhooks.markDispatched(key.accountId, key.eventId, deps.clock().toISOString());
      deps.onClosed?.(key, 'stored without its body');
    } catch (error) {
      deps.onUnfinished?.(key, error);
      await deps.webhooks.postponeResend('event', key, later).catch(() => undefined);
    }
  }
  return ready;
}
