/** What the article use cases need from the outside world. */

import type { SourceReport } from '../sources/article-sources';
import type { Category, Website } from '../websites/website';
import type { Article } from './article';
import type { ArticleImage } from './article-images';
import type { Outline, TokenUsage } from './article-model';
import type { ArticleSeo } from './article-seo';

/** The outcome of trying to hold credits and a daily slot for an article. */
export type ReservationOutcome = 'reserved' | 'not_enough_credits' | 'daily_limit_reached';
export type DeferredState = Exclude<ReservationOutcome, 'reserved'>;

export interface Reservation {
  price: number;
  /** UTC day (`YYYY-MM-DD`) the generation counts against, and the account's limit. */
  day: string;
  dailyLimit: number;
  now: string;
  /** When the sweeper sends the message itself if the create did not get to send it. */
  sendBy: string;
  /** When to re-attempt the reservation if credits are short / the daily limit is reached. */
  retryCreditsAt: string;
  retryDailyLimitAt: string;
}

export interface GenerationResult {
  title: string;
  content: string;
  totalWords: number;
  providerModel: string;
  promptTokens: number;
  completionTokens: number;
  generatedAt: string;
  seo?: ArticleSeo;
  /** The images that could be had, and the credits of those that could not (given back at completion). */
  images?: ArticleImage[];
  imageRefund?: number;
}

export interface ArticlePage {
  items: Article[];
  total?: number;
}

/** What happened when a worker tried to take an article's lease. */
export type LeaseOutcome =
  /** The worker holds the article now; `article` has the attempt counted (its `leaseOwner` is the lease id). */
  | { kind: 'leased'; article: Article }
  /** Another worker holds a live lease (until `leaseExpiresAt`): this delivery is a duplicate. */
  | { kind: 'busy'; leaseExpiresAt: string }
  /**
   * No live lease and attempts left, yet the lease could not be taken: another worker held it a
   * moment ago and gave it back for a retry that its own delivery (or the sweeper) brings.
   */
  | { kind: 'released'; article: Article }
  /** Every attempt was used and no lease is live: the article must be failed. */
  | { kind: 'exhausted'; article: Article }
  /** Not queued (generated, failed, cancelled, deferred) or unknown. */
  | { kind: 'not_queued'; article?: Article };

export type ArticleKey = Pick<Article, 'accountId' | 'articleUuid'>;

/** States from which a reservation may be (re-)attempted. */
export type ReservableState = DeferredState | 'error';

/** Create and reserve: a new article, a reservation tried again, and a cancel that gives it back. */
export interface ArticleReservations {
  /** Stores a new article and, atomically with it, reserves credits and a daily slot when possible. */
  createWithReservation(article: Article, reservation: Reservation): Promise<ReservationOutcome>;
  /**
   * Re-attempts the reservation of an article in one of `from` (deferred by default, or `error`
   * for a client's retry, which also resets its attempts); `undefined` when it is no longer in them.
   */
  retryReservation(
    article: Article,
    reservation: Reservation,
    from?: ReservableState[],
  ): Promise<ReservationOutcome | undefined>;
  /**
   * Cancels an article whose generation has not started (`canCancel`), refunding what it holds
   * in the same write; false when it is in any other state.
   */
  cancel(article: Article, cancelledAt: string): Promise<boolean>;
}

/** Read and list: one article, the generated list and the queue, newest first. */
export interface ArticleReads {
  get(accountId: string, articleUuid: string): Promise<Article | undefined>;
  /** Generated articles, newest first. */
  listGenerated(accountId: string, page: number, perPage: number): Promise<ArticlePage>;
  /** Articles not generated (yet), newest first. */
  listQueued(accountId: string, page: number, perPage: number): Promise<ArticlePage>;
}

/** Bookkeeping of a generation message: sent, or due for the next sweep to send. */
export interface GenerationDispatch {
  /** The article's message is out: the sweeper looks at it again only at `recheckAt`. */
  markSent(article: ArticleKey, recheckAt: string): Promise<void>;
  /**
   * `markSent` for many articles with few calls (a batch's items); an article a worker already
   * took is left to it, as `markSent` leaves it.
   */
  markSentMany?(articles: ArticleKey[], recheckAt: string): Promise<void>;
  /** Moves a queued article's next sweeper check to `nextCheckAt`. */
  postponeCheck(article: ArticleKey, nextCheckAt: string): Promise<void>;
}

/**
 * Generation lifecycle: the worker's lease, its attempts, and the final success or failure.
 * Each lease has an id (a fresh UUID per take, stored as `leaseOwner`): renewal, release,
 * completion and a worker's failure are conditional on it, so a worker whose lease was lost
 * (expired and taken by another delivery) changes nothing.
 */
export interface GenerationLifecycle {
  get(accountId: string, articleUuid: string): Promise<Article | undefined>;
  /** Takes the generation lease `leaseId` until `leaseUntil`, counting one attempt. */
  takeLease(
    article: ArticleKey,
    leaseId: string,
    now: string,
    leaseUntil: string,
    maxAttempts: number,
  ): Promise<LeaseOutcome>;
  /** Extends lease `leaseId`; false when the article is held by it no more. */
  renewLease(article: ArticleKey, leaseId: string, leaseUntil: string): Promise<boolean>;
  /** Gives lease `leaseId` back after a failed attempt; the sweeper looks again at `recheckAt`. */
  releaseLease(article: ArticleKey, leaseId: string, reason: string, recheckAt: string): Promise<void>;
  /**
   * Records the generated article, gives it the next place in the account's list and counts it
   * on its website and in the day's usage, while lease `leaseId` holds it; false otherwise
   * (completed or failed by another delivery, or the lease was lost).
   */
  completeGeneration(article: Article, leaseId: string, result: GenerationResult): Promise<boolean>;
  /**
   * Marks a queued article failed and refunds its credits: while lease `leaseId` holds it (the
   * worker's last attempt) or, without a lease id, when its attempts are used up and no lease is
   * live at `failedAt` (its last worker died). False otherwise.
   */
  failGeneration(
    article: ArticleKey,
    reason: string,
    failedAt: string,
    leaseId?: string,
    sources?: SourceReport[],
  ): Promise<boolean>;
}

/**
 * Outline review (outline-review.ts): an article whose generation stops after its outline, and
 * every way out of `outline_ready`, each a write conditional on that state.
 */
export interface OutlineReviews {
  /**
   * Moves the article `owner` holds (queued, leased) to `outline_ready` with the model's outline,
   * due for expiry at `expiresAt`, with its `article.outline_ready` event; false when the lease
   * was lost.
   */
  holdForReview(
    article: ArticleKey,
    owner: string,
    review: { outline: Outline; usage: TokenUsage; readyAt: string; expiresAt: string },
  ): Promise<boolean>;
  /**
   * Moves an `outline_ready` article back to `queued` with the approved outline (and its title and
   * slug), attempts reset, due for the sweeper at `sendBy`; false when it is not `outline_ready`.
   */
  approveOutline(article: Article, outline: Outline, approvedAt: string, sendBy: string): Promise<boolean>;
  /** Cancels an `outline_ready` article due for expiry, refunding it; false when it moved on. */
  expireOutline(article: ArticleKey, expiredAt: string): Promise<boolean>;
  /** Outlines due for expiry by `dueBy`, at most `limit`. */
  listExpiredOutlines(dueBy: string, limit: number): Promise<Article[]>;
}

/** Sweeping: what is due for the sweeper, and what it records. */
export interface ArticleSweeps {
  /** Articles due for the sweeper in one kind of work (`reservation` or `generation`), at most `limit`. */
  listDue(kind: 'reservation' | 'generation', dueBy: string, limit: number): Promise<Article[]>;
  /** Records that the sweeper re-sent the article's message; next check at `nextCheckAt`. */
  markResent(article: ArticleKey, nextCheckAt: string): Promise<void>;
  /** Makes the account's articles deferred in `state` due for a new reservation attempt now. */
  makeDeferralsDue(accountId: string, state: DeferredState, now: string): Promise<number>;
}

/** A queued article, and the worker that held it when the queue was lost, if any. */
export interface QueuedGeneration extends GenerationMessage {
  leaseOwner?: string;
}

/** The local runtime's recovery of a queue that lost its messages. */
export interface QueuedGenerations {
  /** Every article in state `queued` (all accounts), a page at a time. */
  listQueuedGenerations(): AsyncIterable<QueuedGeneration[]>;
  /** Ends a lease whose worker is known to be dead (the only process that had it stopped). */
  breakLease(article: QueuedGeneration): Promise<void>;
}

/** Every article port at once: what the DynamoDB adapter implements. Use cases take the narrow ones. */
export type ArticleStore = ArticleReservations &
  ArticleReads &
  GenerationDispatch &
  GenerationLifecycle &
  ArticleSweeps &
  OutlineReviews;

export interface GenerationMessage {
  accountId: string;
  articleUuid: string;
}

export interface GenerationQueue {
  enqueue(message: GenerationMessage): Promise<void>;
  /** Sends many at once (10 a call on SQS); answers the messages that could not be sent. */
  enqueueMany?(messages: GenerationMessage[]): Promise<GenerationMessage[]>;
}

/** A delivery of a generation message, as the worker got it. */
export interface GenerationDelivery {
  /** Makes this delivery come back after `delaySeconds` (its retry), instead of being deleted. */
  retryAfter(delaySeconds: number): Promise<void>;
}

/** Read access to websites and categories, for validation and nesting in article records. */
export interface WebsiteLookup {
  get(accountId: string, websiteUuid: string): Promise<Website | undefined>;
  getMany(accountId: string, websiteUuids: string[]): Promise<Website[]>;
}

export interface CategoryLookup {
  get(websiteUuid: string, categoryUuid: string): Promise<Category | undefined>;
  getMany(keys: { websiteUuid: string; categoryUuid: string }[]): Promise<Category[]>;
}

export type Clock = () => Date;
