/**
 * Articles in DynamoDB, one module per use case: reservations (create, retry, cancel), reads,
 * the generation lifecycle, outline review and the sweeper's work. This class puts them behind every article
 * port for callers that want them all; a handler that needs one port can build its module alone.
 * Credits, daily usage, the list sequence and website counters change in the same transactions
 * as the article, so retries and concurrency never charge twice.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import type { Outline, TokenUsage } from '../../core/articles/article-model';
import type {
  ArticleKey,
  ArticlePage,
  ArticleStore,
  DeferredState,
  GenerationResult,
  LeaseOutcome,
  QueuedGeneration,
  QueuedGenerations,
  ReservableState,
  Reservation,
  ReservationOutcome,
} from '../../core/articles/ports';
import type { SourceReport } from '../../core/sources/article-sources';
import { DynamoGenerationLifecycle, type GenerationTables } from './article-generation';
import { DynamoOutlineReviews } from './article-outline-review';
import { DynamoArticleReads } from './article-reads';
import { DynamoArticleReservations, type ReservationTables } from './article-reservations';
import { DynamoArticleSweeps } from './article-sweeps';
import type { EventOutbox } from './event-outbox';

export type ArticleTables = ReservationTables & GenerationTables;

export { DynamoArticleReads, DynamoArticleReservations, DynamoArticleSweeps, DynamoGenerationLifecycle };

export class DynamoArticleRepository implements ArticleStore, QueuedGenerations {
  private readonly reservations: DynamoArticleReservations;
  private readonly reads: DynamoArticleReads;
  private readonly lifecycle: DynamoGenerationLifecycle;
  private readonly sweeps: DynamoArticleSweeps;
  private readonly outlines: DynamoOutlineReviews;

  /** With `events`, generated and failed articles store their webhook events (event-outbox.ts). */
  constructor(client: DynamoDBDocumentClient, tables: ArticleTables, events?: EventOutbox) {
    this.reservations = new DynamoArticleReservations(client, tables);
    this.reads = new DynamoArticleReads(client, tables);
    this.lifecycle = new DynamoGenerationLifecycle(client, tables, events);
    this.sweeps = new DynamoArticleSweeps(client, tables);
    this.outlines = new DynamoOutlineReviews(client, tables, events);
  }

  createWithReservation(article: Article, reservation: Reservation): Promise<ReservationOutcome> {
    return this.reservations.createWithReservation(article, reservation);
  }
  retryReservation(
    article: Article,
    reservation: Reservation,
    from?: ReservableState[],
  ): Promise<ReservationOutcome | undefined> {
    return this.reservations.retryReservation(article, reservation, from);
  }
  cancel(article: Article, cancelledAt: string): Promise<boolean> {
    return this.reservations.cancel(article, cancelledAt);
  }

  get(accountId: string, articleUuid: string): Promise<Article | undefined> {
    return this.reads.get(accountId, articleUuid);
  }
  listGenerated(accountId: string, page: number, perPage: number): Promise<ArticlePage> {
    return this.reads.listGenerated(accountId, page, perPage);
  }
  listQueued(accountId: string, page: number, perPage: number): Promise<ArticlePage> {
    return this.reads.listQueued(accountId, page, perPage);
  }

  takeLease(
    article: ArticleKey,
    leaseId: string,
    now: string,
    leaseUntil: string,
    maxAttempts: number,
  ): Promise<LeaseOutcome> {
    return this.lifecycle.takeLease(article, leaseId, now, leaseUntil, maxAttempts);
  }
  renewLease(article: ArticleKey, leaseId: string, leaseUntil: string): Promise<boolean> {
    return this.lifecycle.renewLease(article, leaseId, leaseUntil);
  }
  releaseLease(article: ArticleKey, leaseId: string, reason: string, recheckAt: string): Promise<void> {
    return this.lifecycle.releaseLease(article, leaseId, reason, recheckAt);
  }
  completeGeneration(article: Article, leaseId: string, result: GenerationResult): Promise<boolean> {
    return this.lifecycle.completeGeneration(article, leaseId, result);
  }
  failGeneration(
    article: ArticleKey,
    reason: string,
    failedAt: string,
    leaseId?: string,
    sources?: SourceReport[],
  ): Promise<boolean> {
    return this.lifecycle.failGeneration(article, reason, failedAt, leaseId, sources);
  }

  markSent(article: ArticleKey, recheckAt: string): Promise<void> {
    return this.sweeps.markSent(article, recheckAt);
  }
  postponeCheck(article: ArticleKey, nextCheckAt: string): Promise<void> {
    return this.sweeps.postponeCheck(article, nextCheckAt);
  }
  markResent(article: ArticleKey, nextCheckAt: string): Promise<void> {
    return this.sweeps.markResent(article, nextCheckAt);
  }
  listDue(kind: 'reservation' | 'generation', dueBy: string, limit: number): Promise<Article[]> {
    return this.sweeps.listDue(kind, dueBy, limit);
  }
  makeDeferralsDue(accountId: string, state: DeferredState, now: string): Promise<number> {
    return this.sweeps.makeDeferralsDue(accountId, state, now);
  }
  listQueuedGenerations(): AsyncIterable<QueuedGeneration[]> {
    return this.sweeps.listQueuedGenerations();
  }
  breakLease(article: QueuedGeneration): Promise<void> {
    return this.sweeps.breakLease(article);
  }

  holdForReview(
    article: ArticleKey,
    owner: string,
    review: { outline: Outline; usage: TokenUsage; readyAt: string; expiresAt: string },
  ): Promise<boolean> {
    return this.outlines.holdForReview(article, owner, review);
  }
  approveOutline(article: Article, outline: Outline, approvedAt: string, sendBy: string): Promise<boolean> {
    return this.outlines.approveOutline(article, outline, approvedAt, sendBy);
  }
  expireOutline(article: ArticleKey, expiredAt: string): Promise<boolean> {
    return this.outlines.expireOutline(article, expiredAt);
  }
  listExpiredOutlines(dueBy: string, limit: number): Promise<Article[]> {
    return this.outlines.listExpiredOutlines(dueBy, limit);
  }
}
