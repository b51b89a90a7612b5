/** What the article use cases need from the outside world. */
import type { Category, Website } from '../websites/website';
import type { Article } from './article';
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
}

export interface ArticlePage {
  items: Article[];
  total?: number;
}

/** What happened when a worker tried to take an article's lease. */
export type LeaseOutcome =
  /** The worker holds the article now; `article` has the attempt counted. */
  | { kind: 'leased'; article: Article }
  /** Another worker holds a live lease (until `leaseExpiresAt`): this delivery is a duplicate. */
  | { kind: 'busy'; leaseExpiresAt: string }
  /** Every attempt was used: the article must be failed. */
  | { kind: 'exhausted'; article: Article }
  /** Not queued (generated, failed, cancelled, deferred) or unknown. */
  | { kind: 'not_queued'; article?: Article };

/** States from which a reservation may be (re-)attempted. */
export type ReservableState = DeferredState | 'error';

export interface ArticleStore {
  /** Stores a new article and, atomically with it, reserves credits and a daily slot when possible. */
  createWithReservation(article: Article, reservation: Reservation): Promise<ReservationOutcome>;
  /**
   * Re-attempts the reservation of an article in one of `from` (deferred, or `error` for a
   * client's retry, which also resets its attempts); `undefined` when it is no longer in them.
   */
  retryReservation(
    article: Article,
    reservation: Reservation,
    from?: ReservableState[],
  ): Promise<ReservationOutcome | undefined>;
  get(accountId: string, articleUuid: string): Promise<Article | undefined>;
  /** The article's message is out: the sweeper looks at it again only at `recheckAt`. */
  markSent(article: Article, recheckAt: string): Promise<void>;
  /** Takes the generation lease for `owner` until `leaseUntil`, counting one attempt. */
  takeLease(
    article: Pick<Article, 'accountId' | 'articleUuid'>,
    owner: string,
    now: string,
    leaseUntil: string,
    maxAttempts: number,
  ): Promise<LeaseOutcome>;
  /** Extends `owner`'s lease; false when it holds it no more. */
  renewLease(article: Article, owner: string, leaseUntil: string): Promise<boolean>;
  /** Gives the lease back after a failed attempt; the sweeper looks again at `recheckAt`. */
  releaseLease(article: Article, owner: string, reason: string, recheckAt: string): Promise<void>;
  /**
   * Records the generated article, gives it the next place in the account's list and counts it
   * on its website; false when it was already completed (or failed) by another delivery.
   */
  completeGeneration(article: Article, result: GenerationResult): Promise<boolean>;
  /** Marks a queued article failed and refunds its credits; false when it was not queued any more. */
  failGeneration(article: Article, reason: string, failedAt: string): Promise<boolean>;
  /**
   * Cancels an article whose generation has not started (deferred, or queued with no attempt),
   * refunding what it holds; false when it is in any other state.
   */
  cancel(article: Article, cancelledAt: string): Promise<boolean>;
  /** Moves a queued article's next sweeper check to `nextCheckAt`. */
  postponeCheck(article: Article, nextCheckAt: string): Promise<void>;
  /** Records that the sweeper re-sent the article's message; next check at `nextCheckAt`. */
  markResent(article: Article, nextCheckAt: string): Promise<void>;
  /** Generated articles, newest first. */
  listGenerated(accountId: string, page: number, perPage: number): Promise<ArticlePage>;
  /** Articles not generated (yet), newest first. */
  listQueued(accountId: string, page: number, perPage: number): Promise<ArticlePage>;
  /** Articles due for the sweeper in one kind of work (`reservation` or `generation`), at most `limit`. */
  listDue(kind: 'reservation' | 'generation', dueBy: string, limit: number): Promise<Article[]>;
  /** Makes the account's articles deferred in `state` due for a new reservation attempt now. */
  makeDeferralsDue(accountId: string, state: DeferredState, now: string): Promise<number>;
}

export interface GenerationMessage {
  accountId: string;
  articleUuid: string;
}

export interface GenerationQueue {
  enqueue(message: GenerationMessage): Promise<void>;
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
