/**
 * Webhook endpoints, events, deliveries and attempts in memory, with the repository's
 * conditions (endpoint limit, one event and one delivery per key, leases), plus the webhook
 * queue, the secret cipher, the sender and the receiver URL policy.
 */
import type {
  DeliveryKey,
  EventKey,
  ReceiverUrlPolicy,
  SecretCipher,
  SendResult,
  WebhookMessage,
  WebhookQueue,
  WebhookSender,
  WebhookStore,
} from '../../../functions/core/webhooks/ports';
import type {
  DeliveryAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEvent,
} from '../../../functions/core/webhooks/webhook';
import { copy, key } from './tables';

type Resend = { kind: 'event' | 'delivery'; at: string };

export class FakeWebhookStore implements WebhookStore {
  readonly endpoints = new Map<string, WebhookEndpoint>();
  readonly events = new Map<string, { event: WebhookEvent; resend?: Resend }>();
  readonly deliveries = new Map<string, { delivery: WebhookDelivery; resend?: Resend }>();
  readonly attempts: DeliveryAttempt[] = [];

  async createEndpoint(endpoint: WebhookEndpoint, max: number): Promise<boolean> {
    if ((await this.listEndpoints(endpoint.accountId)).length >= max) return false;
    this.endpoints.set(key(endpoint.accountId, endpoint.webhookUuid), copy(endpoint));
    return true;
  }

  async getEndpoint(accountId: string, webhookUuid: string): Promise<WebhookEndpoint | undefined> {
    const endpoint = this.endpoints.get(key(accountId, webhookUuid));
    return endpoint ? copy(endpoint) : undefined;
  }

  async listEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
    return [...this.endpoints.values()].filter((endpoint) => endpoint.accountId === accountId).map(copy);
  }

  async deleteEndpoint(accountId: string, webhookUuid: string): Promise<WebhookEndpoint | undefined> {
    const endpoint = await this.getEndpoint(accountId, webhookUuid);
    this.endpoints.delete(key(accountId, webhookUuid));
    return endpoint;
  }

  async disableEndpoint(accountId: string, webhookUuid: string, at: string, reason: string): Promise<void> {
    const endpoint = this.endpoints.get(key(accountId, webhookUuid));
    if (endpoint) Object.assign(endpoint, { disabledAt: at, disabledReason: reason });
  }

  async enableEndpoint(accountId: string, webhookUuid: string): Promise<WebhookEndpoint | undefined> {
    const endpoint = this.endpoints.get(key(accountId, webhookUuid));
    if (!endpoint) return undefined;
    delete endpoint.disabledAt;
    delete endpoint.disabledReason;
    delete endpoint.failingSince;
    return copy(endpoint);
  }

  async markFailing(accountId: string, webhookUuid: string, at: string): Promise<void> {
    const endpoint = this.endpoints.get(key(accountId, webhookUuid));
    if (endpoint && endpoint.failingSince === undefined) endpoint.failingSince = at;
  }

  async markHealthy(accountId: string, webhookUuid: string): Promise<void> {
    const endpoint = this.endpoints.get(key(accountId, webhookUuid));
    if (endpoint) delete endpoint.failingSince;
  }

  async rotateSecret(
    accountId: string,
    webhookUuid: string,
    ciphertext: string,
    previous: { ciphertext: string; until: string },
  ): Promise<boolean> {
    const endpoint = this.endpoints.get(key(accountId, webhookUuid));
    if (endpoint?.secretCiphertext !== previous.ciphertext) return false;
    Object.assign(endpoint, {
      secretCiphertext: ciphertext,
      previousSecretCiphertext: previous.ciphertext,
      previousSecretUntil: previous.until,
    });
    return true;
  }

  /** Stores an event alone (tests; in production the outbox writes it in a change's transaction). */
  async putEvent(event: WebhookEvent, resendAt: string): Promise<boolean> {
    const eventKey = key(event.accountId, event.eventId);
    if (this.events.has(eventKey)) return false;
    this.events.set(eventKey, { event: copy(event), resend: { kind: 'event', at: resendAt } });
    return true;
  }

  async getEvent(accountId: string, eventId: string): Promise<WebhookEvent | undefined> {
    const stored = this.events.get(key(accountId, eventId));
    return stored ? copy(stored.event) : undefined;
  }

  async markDispatched(accountId: string, eventId: string, at: string): Promise<void> {
    const stored = this.events.get(key(accountId, eventId));
    if (!stored) return;
    stored.event.dispatchedAt = at;
    stored.resend = undefined;
  }

  async postponeResend(
    kind: 'event' | 'delivery',
    ref: DeliveryKey | EventKey,
    resendAt: string,
  ): Promise<void> {
    const stored =
      kind === 'event'
        ? this.events.get(key(ref.accountId, ref.eventId))
        : this.deliveries.get(deliveryKey(ref as DeliveryKey));
    if (stored?.resend && stored.resend.at < resendAt) stored.resend.at = resendAt;
  }

  async ensureDelivery(delivery: WebhookDelivery, resendAt: string): Promise<WebhookDelivery> {
    const deliveryId = deliveryKey(delivery);
    const existing = this.deliveries.get(deliveryId);
    if (existing) return copy(existing.delivery);
    this.deliveries.set(deliveryId, { delivery: copy(delivery), resend: { kind: 'delivery', at: resendAt } });
    return copy(delivery);
  }

  async getDelivery(ref: DeliveryKey): Promise<WebhookDelivery | undefined> {
    const stored = this.deliveries.get(deliveryKey(ref));
    return stored ? copy(stored.delivery) : undefined;
  }

  async leaseDelivery(
    delivery: WebhookDelivery,
    owner: string,
    now: string,
    leaseUntil: string,
  ): Promise<boolean> {
    const stored = this.deliveries.get(deliveryKey(delivery));
    const current = stored?.delivery;
    if (!stored || current?.state !== 'pending' || current.attempts !== delivery.attempts) return false;
    if (current.leaseUntil !== undefined && current.leaseUntil >= now) return false;
    Object.assign(current, { leaseOwner: owner, leaseUntil });
    if (stored.resend) stored.resend.at = leaseUntil;
    return true;
  }

  async scheduleRetry(
    delivery: WebhookDelivery,
    owner: string,
    attempts: number,
    nextAttemptAt: string,
    resendAt: string,
  ): Promise<void> {
    const stored = this.deliveries.get(deliveryKey(delivery));
    if (stored?.delivery.leaseOwner !== owner) return;
    const { leaseOwner: _owner, leaseUntil: _until, ...rest } = stored.delivery;
    stored.delivery = { ...rest, attempts, nextAttemptAt };
    stored.resend = { kind: 'delivery', at: resendAt };
  }

  async finishDelivery(
    delivery: WebhookDelivery,
    owner: string | undefined,
    state: 'succeeded' | 'failed',
    attempts: number,
  ): Promise<void> {
    const stored = this.deliveries.get(deliveryKey(delivery));
    if (!stored) return;
    if (owner ? stored.delivery.leaseOwner !== owner : stored.delivery.state !== 'pending') return;
    const { leaseOwner: _owner, leaseUntil: _until, nextAttemptAt: _next, ...rest } = stored.delivery;
    stored.delivery = { ...rest, state, attempts };
    stored.resend = undefined;
  }

  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    this.attempts.push(copy(attempt));
  }

  async listAttempts(accountId: string, webhookUuid: string, limit: number): Promise<DeliveryAttempt[]> {
    return this.attempts
      .filter((attempt) => attempt.accountId === accountId && attempt.webhookUuid === webhookUuid)
      .sort((a, b) => b.attemptedAt.localeCompare(a.attemptedAt) || b.attempt - a.attempt)
      .slice(0, limit)
      .map(copy);
  }

  async listDue(
    kind: 'event' | 'delivery',
    dueBy: string,
    limit: number,
  ): Promise<(EventKey | DeliveryKey)[]> {
    const rows =
      kind === 'event'
        ? [...this.events.values()].map(({ event, resend }) => ({
            ref: { accountId: event.accountId, eventId: event.eventId } as EventKey | DeliveryKey,
            resend,
          }))
        : [...this.deliveries.values()].map(({ delivery, resend }) => ({
            ref: {
              accountId: delivery.accountId,
              eventId: delivery.eventId,
              webhookUuid: delivery.webhookUuid,
            },
            resend,
          }));
    return rows
      .filter(({ resend }) => resend !== undefined && resend.at <= dueBy)
      .sort((a, b) => (a.resend?.at ?? '').localeCompare(b.resend?.at ?? ''))
      .slice(0, limit)
      .map(({ ref }) => ref);
  }
}

const deliveryKey = (ref: DeliveryKey) => key(ref.accountId, ref.eventId, ref.webhookUuid);

export class FakeWebhookQueue implements WebhookQueue {
  readonly sent: { message: WebhookMessage; delaySeconds?: number }[] = [];

  async send(messages: { message: WebhookMessage; delaySeconds?: number }[]): Promise<void> {
    this.sent.push(...messages.map(copy));
  }
}

/** Bound to the account and the endpoint, like the KMS cipher with its context. */
export class FakeSecretCipher implements SecretCipher {
  async encrypt(secret: string, context: { accountId: string; webhookUuid: string }): Promise<string> {
    return `sealed:${context.accountId}:${context.webhookUuid}:${Buffer.from(secret).toString('base64')}`;
  }

  async decrypt(ciphertext: string, context: { accountId: string; webhookUuid: string }): Promise<string> {
    const prefix = `sealed:${context.accountId}:${context.webhookUuid}:`;
    if (!ciphertext.startsWith(prefix)) throw new Error('InvalidCiphertextException');
    return Buffer.from(ciphertext.slice(prefix.length), 'base64').toString('utf8');
  }
}

/** Answers each send with the next scripted result (default 200) and keeps what was sent. */
export class FakeWebhookSender implements WebhookSender {
  readonly requests: Parameters<WebhookSender['send']>[0][] = [];
  private readonly answers: SendResult[] = [];

  answer(...results: SendResult[]): void {
    this.answers.push(...results);
  }

  async send(request: Parameters<WebhookSender['send']>[0]): Promise<SendResult> {
    this.requests.push({ ...request });
    return this.answers.shift() ?? { kind: 'answered', statusCode: 200 };
  }
}

/** Allows every URL unless told otherwise. */
export class FakeReceiverUrlPolicy implements ReceiverUrlPolicy {
  verdict: Awaited<ReturnType<ReceiverUrlPolicy['check']>> = 'ok';

  async check(): Promise<Awaited<ReturnType<ReceiverUrlPolicy['check']>>> {
    return this.verdict;
  }
}
