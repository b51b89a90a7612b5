/**
 * A batch: up to MAX_BATCH_ITEMS creates accepted by one request (`POST /v1/articles/batch`),
 * reserved in one step. Its articles are ordinary articles whose uuids derive from the batch's
 * (so every write of them is idempotent), and the batch record says which rows they came from,
 * what each reservation gave, and when every item was final (`batch.completed`).
 */
import { createHash } from 'node:crypto';
import type { FieldErrors } from '../errors';
import type { Article, ArticleState } from './article';
import type { DeferredState, ReservationOutcome } from './ports';

export const MAX_BATCH_ITEMS = 500;
/** How long a create has to write its batch's articles before the sweeper finishes the writes. */
export const BATCH_WRITE_GRACE_MS = 2 * 60_000;
/** How often the sweeper looks whether every item of an unfinished batch is final. */
export const BATCH_CHECK_INTERVAL_MS = 60_000;

/** A row the batch refused, named as in the file (CSV: the header is row 1; JSON: the item's index). */
export interface RejectedRow {
  row: number;
  errors: FieldErrors;
}

/** How a batch spreads `publish_at` over its items (batch-schedule.ts). */
export interface BatchSchedule {
  /** First local date, `YYYY-MM-DD`. */
  start: string;
  /** `1d`, `12h`, `2d`, `1w`: the step between two items. */
  every: string;
  /** Local time of day, `HH:MM`. */
  at: string;
  /** IANA time zone the dates and times are local to. */
  timezone: string;
  /** Days of the week an item may fall on (`mon`..`sun`); absent: every day. */
  weekdays?: string[];
}

export interface Batch {
  accountId: string;
  batchUuid: string;
  createdAt: string;
  /** Hash of the request that named this batch with an Idempotency-Key (copies must match). */
  requestHash?: string;
  /** The row each item came from, in item order. */
  rows: number[];
  /** What each item's reservation gave at acceptance, in item order. */
  outcomes: ReservationOutcome[];
  /** Credits reserved at acceptance (the sum of the reserved items' prices). */
  creditsReserved: number;
  /** Rows refused (with `partial=1`; without it nothing is stored). */
  rejected: RejectedRow[];
  schedule?: BatchSchedule;
  /** Every article is stored (until then the sweeper finishes the writes from the stored requests). */
  written: boolean;
  /** When every item was found final and `batch.completed` recorded. */
  completedAt?: string;
}

/**
 * The uuid of item `index` of a batch (version 8, name-based): a create, its retry and the
 * sweeper's recovery write the same article rows.
 */
export function batchArticleUuid(batchUuid: string, index: number): string {
  const hex = createHash('sha256').update(`batch-item\n${batchUuid}\n${index}`).digest('hex');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The item uuids of a batch of `count` items, in item order. */
export function batchArticleUuids(batchUuid: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => batchArticleUuid(batchUuid, index));
}

/**
 * What the reservation of a batch gives each item, from the prices in item order, the account's
 * credits and the daily slots left today: the first items up to the slots left are reserved
 * when the credits cover all of them at once (one charge, never a part of it); when they do not,
 * nothing is charged and every item waits for credits. An item past the slots waits for the next
 * day (`daily_limit_reached`), or, when the credits left would not cover it either, for credits
 * (`not_enough_credits`): short of both, a single create waits for credits first.
 */
export function planBatch(
  prices: readonly number[],
  credits: number,
  slotsLeft: number,
): { outcomes: ReservationOutcome[]; charge: number; reserved: number } {
  const reserved = Math.max(0, Math.min(prices.length, slotsLeft));
  const charge = prices.slice(0, reserved).reduce((sum, price) => sum + price, 0);
  if (reserved > 0 && credits < charge) {
    return { outcomes: prices.map(() => 'not_enough_credits'), charge: 0, reserved: 0 };
  }
  const left = credits - charge;
  const outcomes = prices.map((price, index): ReservationOutcome => {
    if (index < reserved) return 'reserved';
    return price > left ? 'not_enough_credits' : 'daily_limit_reached';
  });
  return { outcomes, charge, reserved };
}

export const isDeferredOutcome = (outcome: ReservationOutcome): outcome is DeferredState =>
  outcome !== 'reserved';

/** What an item's article state is counted as in a batch's `counts`. */
export type BatchItemStatus =
  | Exclude<ArticleState, 'generated'>
  | 'generated'
  | 'publishing'
  | 'published'
  | 'publish_failed';

/** The status of one item: its generation state, and for a generated article with a website its publication. */
export function batchItemStatus(
  article: Pick<Article, 'state' | 'websiteUuid' | 'publishState'>,
): BatchItemStatus {
  if (article.state !== 'generated' || article.websiteUuid === undefined) return article.state;
  if (article.publishState === 'published') return 'published';
  if (article.publishState === 'failed') return 'publish_failed';
  return 'publishing';
}

/** Nothing more will happen to the item by itself: failed, cancelled, generated (and published or given up). */
export function isFinalItem(status: BatchItemStatus): boolean {
  return (
    status === 'error' ||
    status === 'cancelled' ||
    status === 'generated' ||
    status === 'published' ||
    status === 'publish_failed'
  );
}

export const BATCH_ITEM_STATUSES: readonly BatchItemStatus[] = [
  'queued',
  'not_enough_credits',
  'daily_limit_reached',
  'outline_ready',
  'generated',
  'publishing',
  'published',
  'publish_failed',
  'error',
  'cancelled',
];

/** How many items are in each status (every status named, zeros included). */
export function countStatuses(statuses: readonly BatchItemStatus[]): Record<BatchItemStatus, number> {
  const counts = Object.fromEntries(BATCH_ITEM_STATUSES.map((status) => [status, 0])) as Record<
    BatchItemStatus,
    number
  >;
  for (const status of statuses) counts[status] += 1;
  return counts;
}
