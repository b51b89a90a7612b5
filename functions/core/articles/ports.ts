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
  /** When a queued article counts as stuck (its message lost or dead-lettered). */
  stuckAfter: string;
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

export interface ArticleStore {
  /** Stores a new article and, atomically with it, reserves credits and a daily slot when possible. */
  createWithReservation(article: Article, reservation: Reservation): Promise<ReservationOutcome>;
  /** Re-attempts the reservation of a deferred article; `undefined` when it is no longer deferred. */
  retryReservation(article: Article, reservation: Reservation): Promise<ReservationOutcome | undefined>;
  get(accountId: string, articleUuid: string): Promise<Article | undefined>;
  /**
   * Records the generated article, gives it the next place in the account's list and counts it
   * on its website; false when it was already completed (or failed) by another delivery.
   */
  completeGeneration(article: Article, result: GenerationResult): Promise<boolean>;
  /** Marks a queued article failed and refunds its credits; false when it was not queued any more. */
  failGeneration(article: Article, reason: string, failedAt: string): Promise<boolean>;
  /** Moves a queued article's next stuck check to `nextCheckAt`. */
  postponeStuckCheck(article: Article, nextCheckAt: string): Promise<void>;
  /** Records that the sweeper re-sent the article's message; next stuck check at `nextCheckAt`. */
  markRequeued(article: Article, nextCheckAt: string): Promise<void>;
  /** Generated articles, newest first. */
  listGenerated(accountId: string, page: number, perPage: number): Promise<ArticlePage>;
  /** Articles not generated (yet), newest first. */
  listQueued(accountId: string, page: number, perPage: number): Promise<ArticlePage>;
  /** Articles due for the sweeper in one bucket (`reservation` or `generation`), oldest due first. */
  listDue(bucket: 'reservation' | 'generation', dueBy: string, limit: number): Promise<Article[]>;
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
