/**
 * Webhook endpoints, the events they receive, and the delivery policy of the Standard Webhooks
 * specification (https://www.standardwebhooks.com): one `webhook-id` per event, kept across
 * retries, which follow its schedule.
 */
import { toWireTime } from '../wire';

export const WEBHOOK_EVENT_TYPES = [
  'article.generated',
  'article.failed',
  'article.outline_ready',
  'article.published',
  'article.publish_failed',
  'website.unhealthy',
  'website.recovered',
  'batch.completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What each event means (the OpenAPI document and docs/api-guide.md say the same). */
export const WEBHOOK_EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'article.generated': 'An article was generated. `data` is the article record, as `show` returns it.',
  'article.failed':
    'Generation failed after every attempt; the credits were refunded. `data` is the article record (status `error`).',
  'article.outline_ready':
    'An article created with `outline_review` has its outline (status `outline_ready`): approve it with `POST /v1/articles/{uuid}/outline`, or cancel it. `data` is the article record with `outline`.',
  'article.published':
    'The article is on its website (live, scheduled or as a draft). `data` is the article record with `cms_id`, `cms_permalink` and `publication`.',
  'article.publish_failed':
    'Publication was given up (`publication.state` `failed`, with `last_error`); `retry` tries again. `data` is the article record.',
  'website.unhealthy':
    'A call to the website failed: its login was refused or it could not be reached (sent when a healthy website gets a flag, and when its flags change while it is unhealthy, e.g. unreachable, then the login refused). `data` is the website record with its flags.',
  'website.recovered': 'The website answers again and its flags are cleared. `data` is the website record.',
  'batch.completed':
    'Every item of a batch is final (generated, and published or given up when it has a website; failed; or cancelled). `data` is the batch record, as `GET /v1/batches/{uuid}` returns it, with its counts.',
};

/** At most this many endpoints per account. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 10;
/** Each attempt must be answered within this time. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/**
 * Standard Webhooks' retry schedule: the first attempt immediately, then after 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h and 10 h; after the 8th failed attempt the delivery is failed.
 */
export const RETRY_SCHEDULE_SECONDS = [0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000] as const;
export const MAX_DELIVERY_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length;
/** Longest delay a queue message can carry (SQS); longer waits are picked up by the sweeper. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
/** How long one attempt may hold its delivery before the sweeper may send it again. */
export const DELIVERY_LEASE_MS = 60_000;
/** Events, deliveries and attempts are kept this long (then expire). */
export const WEBHOOK_HISTORY_DAYS = 30;
/** Backstop: an event or delivery whose message was lost is sent again after this long. */
export const RESEND_AFTER_MS = 2 * 60_000;
/** An endpoint whose every attempt failed for this long is disabled (as Svix and Stripe do). */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600_000;
export const FAILING_DISABLED_REASON = 'Every delivery attempt failed for 5 days.';
/** After a secret rotation, deliveries are signed with the previous secret too for this long. */
export const PREVIOUS_SECRET_MS = 24 * 3600_000;

/** Delay before attempt `attemptNumber` (1-based; attempt 1 is immediate). */
export function retryDelaySeconds(attemptNumber: number): number {
  return RETRY_SCHEDULE_SECONDS[Math.min(attemptNumber, MAX_DELIVERY_ATTEMPTS) - 1] ?? 0;
}

export interface WebhookEndpoint {
  accountId: string;
  webhookUuid: string;
  url: string;
  events: WebhookEventType[];
  /** The signing secret, encrypted with KMS (bound to the account and the webhook). */
  secretCiphertext: string;
  createdAt: string;
  /**
   * Set when the receiver answered 410 Gone, or every attempt failed for 5 days: nothing is
   * sent to it any more until it is enabled again.
   */
  disabledAt?: string;
  disabledReason?: string;
  /** The first failed attempt since the last successful one (none: the last attempt succeeded). */
  failingSince?: string;
  /** The secret before the last rotation, still signing deliveries until `previousSecretUntil`. */
  previousSecretCiphertext?: string;
  previousSecretUntil?: string;
}

/** What an event reports: its `data` is this record as `show` returns it. */
export interface EventSubject {
  kind: 'article' | 'website' | 'batch';
  uuid: string;
}

/**
 * One event of an account, stored until every endpoint had it (the outbox). It is written, with
 * its body, in the same transaction as the change it reports: the body is the record as that
 * transaction leaves it, whatever happens to the record before the event is fanned out.
 */
export interface WebhookEvent {
  accountId: string;
  /** The `webhook-id` (`msg_...`): the same for every endpoint and every retry. */
  eventId: string;
  type: WebhookEventType;
  /** The record `data` carries (absent on events stored before the outbox). */
  subject?: EventSubject;
  /**
   * The body sent, exactly: `{"type","timestamp","data"}`. Absent only on events of versions
   * before 2026-11-28 whose producer died before writing it (the sweeper closes those unsent).
   */
  payload?: string;
  createdAt: string;
  /** When the dispatcher fanned it out to the endpoints. */
  dispatchedAt?: string;
}

export type DeliveryState = 'pending' | 'succeeded' | 'failed';

/** One event to one endpoint, tried until it succeeds or the schedule ends. */
export interface WebhookDelivery {
  accountId: string;
  eventId: string;
  webhookUuid: string;
  type: WebhookEventType;
  state: DeliveryState;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (ISO), while pending. */
  nextAttemptAt?: string;
  leaseOwner?: string;
  leaseUntil?: string;
  createdAt: string;
}

/** One attempt, for the deliveries list. */
export interface DeliveryAttempt {
  accountId: string;
  webhookUuid: string;
  eventId: string;
  type: WebhookEventType;
  attempt: number;
  attemptedAt: string;
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  /** Why there was no usable answer (timeout, network, blocked), or why nothing was sent. */
  error?: string;
  result: 'succeeded' | 'retrying' | 'failed';
  nextAttemptAt?: string;
}

export function presentWebhook(endpoint: WebhookEndpoint) {
  return {
    uuid: endpoint.webhookUuid,
    url: endpoint.url,
    events: endpoint.events,
    status: endpoint.disabledAt ? ('disabled' as const) : ('enabled' as const),
    disabled_reason: endpoint.disabledReason ?? null,
    disabled_at: toWireTime(endpoint.disabledAt),
    created_at: toWireTime(endpoint.createdAt),
  };
}

export function presentAttempt(attempt: DeliveryAttempt) {
  return {
    webhook_id: attempt.eventId,
    event: attempt.type,
    attempt: attempt.attempt,
    status_code: attempt.statusCode ?? null,
    error: attempt.error ?? null,
    result: attempt.result,
    attempted_at: toWireTime(attempt.attemptedAt),
    next_attempt_at: toWireTime(attempt.nextAttemptAt),
  };
}

/** Whether a failed attempt at `now` ends 5 days of nothing but failed attempts. */
export function failedTooLong(endpoint: Pick<WebhookEndpoint, 'failingSince'>, now: Date): boolean {
  return (
    endpoint.failingSince !== undefined &&
    now.getTime() - Date.parse(endpoint.failingSince) >= DISABLE_AFTER_FAILING_MS
  );
}

export function isSubscribed(endpoint: WebhookEndpoint, type: WebhookEventType): boolean {
  return endpoint.disabledAt === undefined && endpoint.events.includes(type);
}
