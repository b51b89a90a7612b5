/** What the webhook use cases need from storage, the queue, the key and the network. */
import type { Article } from '../articles/article';
import type { Batch, BatchItemStatus } from '../articles/batch';
import type { Website } from '../websites/website';
import type { DeliveryAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent } from './webhook';

export interface WebhookStore {
  /** Stores the endpoint if the account has fewer than `max`; false when it has `max` already. */
  createEndpoint(endpoint: WebhookEndpoint, max: number): Promise<boolean>;
  getEndpoint(accountId: string, webhookUuid: string): Promise<WebhookEndpoint | undefined>;
  listEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  /** Removes the endpoint; returns what was removed. */
  deleteEndpoint(accountId: string, webhookUuid: string): Promise<WebhookEndpoint | undefined>;
  disableEndpoint(accountId: string, webhookUuid: string, at: string, reason: string): Promise<void>;
  /** Clears the disable (and the failing streak); the endpoint as stored now, undefined if gone. */
  enableEndpoint(accountId: string, webhookUuid: string): Promise<WebhookEndpoint | undefined>;
  /** A failed attempt: starts the failing streak at `at` unless one is going. */
  markFailing(accountId: string, webhookUuid: string, at: string): Promise<void>;
  /** A successful attempt: ends the failing streak. */
  markHealthy(accountId: string, webhookUuid: string): Promise<void>;
  /**
   * Replaces the secret `previous.ciphertext` (the one read; false when another rotation came
   * first) with `ciphertext`, keeping the previous one until `previous.until`.
   */
  rotateSecret(
    accountId: string,
    webhookUuid: string,
    ciphertext: string,
    previous: { ciphertext: string; until: string },
  ): Promise<boolean>;

  getEvent(accountId: string, eventId: string): Promise<WebhookEvent | undefined>;
  markDispatched(accountId: string, eventId: string, at: string): Promise<void>;
  /** Postpones the sweeper's re-send of an event or a delivery. */
  postponeResend(kind: 'event' | 'delivery', key: DeliveryKey | EventKey, resendAt: string): Promise<void>;

  /** Creates the delivery unless it exists (pending, no attempt yet); returns the stored one. */
  ensureDelivery(delivery: WebhookDelivery, resendAt: string): Promise<WebhookDelivery>;
  getDelivery(key: DeliveryKey): Promise<WebhookDelivery | undefined>;
  /**
   * Takes the delivery for one attempt: only while pending, with `attempts` unchanged and no
   * live lease. The sweeper may send it again after `leaseUntil`.
   */
  leaseDelivery(delivery: WebhookDelivery, owner: string, now: string, leaseUntil: string): Promise<boolean>;
  /** After a failed attempt: the next one is due at `nextAttemptAt`; the sweeper re-sends at `resendAt`. */
  scheduleRetry(
    delivery: WebhookDelivery,
    owner: string,
    attempts: number,
    nextAttemptAt: string,
    resendAt: string,
  ): Promise<void>;
  finishDelivery(
    delivery: WebhookDelivery,
    owner: string | undefined,
    state: 'succeeded' | 'failed',
    attempts: number,
  ): Promise<void>;
  recordAttempt(attempt: DeliveryAttempt): Promise<void>;
  /** Attempts to one endpoint, newest first. */
  listAttempts(accountId: string, webhookUuid: string, limit: number): Promise<DeliveryAttempt[]>;

  /** Events never dispatched and deliveries due, whose re-send time has passed. */
  listDue(kind: 'event' | 'delivery', dueBy: string, limit: number): Promise<(EventKey | DeliveryKey)[]>;
}

export interface EventKey {
  accountId: string;
  eventId: string;
}

export interface DeliveryKey extends EventKey {
  webhookUuid: string;
}

export type WebhookMessage = ({ kind: 'event' } & EventKey) | ({ kind: 'delivery' } & DeliveryKey);

export interface WebhookQueue {
  /** Sends messages, each after its delay (at most 900 s). */
  send(messages: { message: WebhookMessage; delaySeconds?: number }[]): Promise<void>;
}

/** The signing secret at rest, bound to the account and the endpoint. */
export interface SecretCipher {
  encrypt(secret: string, context: { accountId: string; webhookUuid: string }): Promise<string>;
  decrypt(ciphertext: string, context: { accountId: string; webhookUuid: string }): Promise<string>;
}

export type SendResult =
  /** With `error` when the status needs saying why it failed (a redirect, not followed). */
  | { kind: 'answered'; statusCode: number; error?: string }
  /** No usable answer (timeout, network error, blocked address, not HTTP). */
  | { kind: 'failed'; error: string };

/**
 * Signs one attempt by the Standard Webhooks specification and POSTs it (10 s timeout): one
 * signature per secret, space-separated in `webhook-signature`.
 */
export interface WebhookSender {
  send(request: {
    url: string;
    secrets: string[];
    webhookId: string;
    timestamp: Date;
    payload: string;
  }): Promise<SendResult>;
}

/** Whether a receiver URL may be registered: http(s), https when deployed, a public address. */
export interface ReceiverUrlPolicy {
  check(url: URL): Promise<'ok' | 'blocked' | 'unresolvable' | 'https_required'>;
}

/** The record an event reports, as the change that produced it leaves it. */
export type EventRecord =
  | {
      kind: 'article';
      article: Article;
      /** What the same change does to the article's website (a completion counts the article there). */
      websiteChange?: (website: Website) => Website;
    }
  | { kind: 'website'; website: Website }
  /** A batch as its completion leaves it, with its items counted per status. */
  | { kind: 'batch'; batch: Batch; counts: Record<BatchItemStatus, number> };

/**
 * An event's `data`: `record` as `show` presents it (an article with its website and category as
 * they are when the change is stored).
 */
export type EventPresenter = (record: EventRecord) => Promise<unknown>;
