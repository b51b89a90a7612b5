/**
 * The article ports in memory, with the DynamoDB adapter's semantics: every change checks its
 * condition against the stored article, a reservation changes the article, the credits and the
 * day's count all together or not at all, and the state rules are core's (`article-rules.ts`).
 */
import type { Article } from '../../../functions/core/articles/article';
import type { Outline, TokenUsage } from '../../../functions/core/articles/article-model';
import {
  canCancel,
  canFailGeneration,
  canTakeLease,
  completion,
  DEFERRED_STATES,
  deferral,
  deferredArticle,
  errorText,
  leaseRefusal,
  outcomeOfStored,
  refundOf,
  reservedArticle,
} from '../../../functions/core/articles/article-rules';
import { approvedArticle, outlineExpired } from '../../../functions/core/articles/outline-rules';
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
} from '../../../functions/core/articles/ports';
import type { SourceReport } from '../../../functions/core/sources/article-sources';
import { type ArticleRow, copy, type InMemoryTables, key } from './tables';

export class FakeArticleStore implements ArticleStore, QueuedGenerations {
  /** Articles whose `article.outline_ready` event was stored, in order. */
  readonly outlineEvents: string[] = [];

  constructor(private readonly tables: InMemoryTables) {}

  /** The stored row (index placement included), for assertions. */
  row(ref: ArticleKey): ArticleRow | undefined {
    return this.tables.articles.get(key(ref.accountId, ref.articleUuid));
  }

  async createWithReservation(article: Article, reservation: Reservation): Promise<ReservationOutcome> {
    const existing = this.row(article);
    if (existing) return outcomeOfStored(copy(existing.article), article);
    // The account's next queue number, as the adapter takes it: the queue's order.
    const queueSeq = (this.tables.queueSeqs.get(article.accountId) ?? 0) + 1;
    this.tables.queueSeqs.set(article.accountId, queueSeq);
    const numbered = { ...copy(article), queueSeq };
    const outcome = this.tryToReserve(article.accountId, reservation);
    if (outcome === 'reserved') {
      this.put({
        article: reservedArticle(numbered, reservation),
        queued: true,
        sweep: { kind: 'generation', at: reservation.sendBy },
      });
    } else {
      this.put({
        article: deferredArticle(numbered, outcome, reservation),
        queued: true,
        sweep: { kind: 'reservation', at: deferral(outcome, reservation).retryAt },
      });
    }
    return outcome;
  }

  async retryReservation(
    article: Article,
    reservation: Reservation,
    from: ReservableState[] = DEFERRED_STATES,
  ): Promise<ReservationOutcome | undefined> {
    const row = this.row(article);
    if (!row || !(from as string[]).includes(row.article.state)) return undefined;
    const outcome = this.tryToReserve(article.accountId, reservation);
    const {
      leaseOwner: _owner,
      leaseExpiresAt: _until,
      resends: _resends,
      failedSources: _failedSources,
      ...rest
    } = row.article;
    if (outcome === 'reserved') {
      row.article = reservedArticle(rest, reservation);
      row.sweep = { kind: 'generation', at: reservation.sendBy };
    } else {
      const { retryAt, startGenerationAt } = deferral(outcome, reservation);
      row.article = {
        ...rest,
        state: outcome,
        generationAttempts: 0,
        ...(startGenerationAt ? { startGenerationAt } : {}),
      };
      row.sweep = { kind: 'reservation', at: retryAt };
    }
    return outcome;
  }

  async cancel(article: Article, cancelledAt: string): Promise<boolean> {
    const row = this.row(article);
    if (!row || !canCancel(row.article)) return false;
    this.refund(row);
    Object.assign(row.article, { state: 'cancelled', creditsCharged: 0, cancelledAt });
    row.queued = false;
    row.sweep = undefined;
    return true;
  }

  async get(accountId: string, articleUuid: string): Promise<Article | undefined> {
    const row = this.row({ accountId, articleUuid });
    return row ? copy(row.article) : undefined;
  }

  async listGenerated(accountId: string, page: number, perPage: number): Promise<ArticlePage> {
    const generated = this.rowsOf(accountId)
      .filter((row) => row.article.generatedSeq !== undefined)
      .sort((a, b) => (b.article.generatedSeq ?? 0) - (a.article.generatedSeq ?? 0));
    return {
      items: generated.slice((page - 1) * perPage, page * perPage).map((row) => copy(row.article)),
      total: this.tables.accounts.get(accountId)?.generatedCount ?? 0,
    };
  }

  async listQueued(accountId: string, page: number, perPage: number): Promise<ArticlePage> {
    const queue = this.rowsOf(accountId)
      .filter((row) => row.queued)
      .sort((a, b) => (b.article.queueSeq ?? 0) - (a.article.queueSeq ?? 0));
    return {
      items: queue.slice((page - 1) * perPage, page * perPage).map((row) => copy(row.article)),
      total: queue.length,
    };
  }

  async markSent(article: ArticleKey, recheckAt: string): Promise<void> {
    const row = this.row(article);
    if (row?.article.state === 'queued' && !row.article.leaseOwner && row.sweep) row.sweep.at = recheckAt;
  }

  async postponeCheck(article: ArticleKey, nextCheckAt: string): Promise<void> {
    const row = this.row(article);
    if (row?.article.state === 'queued') row.sweep = { kind: 'generation', at: nextCheckAt };
  }

  async takeLease(
    ref: ArticleKey,
    leaseId: string,
    now: string,
    leaseUntil: string,
    maxAttempts: number,
  ): Promise<LeaseOutcome> {
    const row = this.row(ref);
    if (!row || !canTakeLease(row.article, now, maxAttempts)) {
      return leaseRefusal(row ? copy(row.article) : undefined, now, maxAttempts);
    }
    Object.assign(row.article, {
      leaseOwner: leaseId,
      leaseExpiresAt: leaseUntil,
      generationAttempts: (row.article.generationAttempts ?? 0) + 1,
    });
    row.sweep = { kind: 'generation', at: leaseUntil };
    return { kind: 'leased', article: copy(row.article) };
  }

  async renewLease(article: ArticleKey, leaseId: string, leaseUntil: string): Promise<boolean> {
    const row = this.row(article);
    if (row?.article.state !== 'queued' || row.article.leaseOwner !== leaseId) return false;
    row.article.leaseExpiresAt = leaseUntil;
    if (row.sweep) row.sweep.at = leaseUntil;
    return true;
  }

  async releaseLease(article: ArticleKey, leaseId: string, reason: string, recheckAt: string): Promise<void> {
    const row = this.row(article);
    if (row?.article.state !== 'queued' || row.article.leaseOwner !== leaseId) return;
    row.article.lastError = errorText(reason);
    delete row.article.leaseOwner;
    delete row.article.leaseExpiresAt;
    if (row.sweep) row.sweep.at = recheckAt;
  }

  async completeGeneration(article: Article, leaseId: string, result: GenerationResult): Promise<boolean> {
    const row = this.row(article);
    if (row?.article.state !== 'queued' || row.article.leaseOwner !== leaseId) return false;
    const account = this.tables.accounts.get(article.accountId);
    const seq = (account?.generatedCount ?? 0) + 1;
    if (account) account.generatedCount = seq;
    const { slug, publishCheckAt } = completion(article, result);
    const { leaseOwner: _owner, leaseExpiresAt: _until, ...rest } = row.article;
    row.article = {
      ...rest,
      state: 'generated',
      generatedTitle: result.title,
      content: result.content,
      totalWords: result.totalWords,
      providerModel: result.providerModel,
      promptTokens: result.promptTokens,
      completionTokens: result.completionTokens,
      generatedAt: result.generatedAt,
      generatedSeq: seq,
      ...(result.seo ? { seo: copy(result.seo) } : {}),
      ...(result.images ? { images: copy(result.images) } : {}),
      ...(publishCheckAt
        ? { slug, publishState: 'pending' as const, publishAttempts: 0, publishRetryAt: publishCheckAt }
        : {}),
    };
    row.queued = false;
    row.sweep = publishCheckAt ? { kind: 'publication', at: publishCheckAt } : undefined;
    // Images that could not be had: their credits back, in the same step (as the transaction does).
    const imageRefund = Math.min(result.imageRefund ?? 0, row.article.creditsCharged);
    if (imageRefund > 0) {
      row.article.creditsCharged -= imageRefund;
      row.article.imageCreditsRefunded = imageRefund;
      if (account) account.credits += imageRefund;
    }
    const charged = row.article.creditsCharged;
    const website = article.websiteUuid
      ? this.tables.websites.get(key(article.accountId, article.websiteUuid))
      : undefined;
    if (website) {
      website.articlesCount += 1;
      website.totalCreditsUsed += charged;
    }
    this.countUsage(article, result.generatedAt, charged);
    return true;
  }

  async failGeneration(
    article: ArticleKey,
    reason: string,
    failedAt: string,
    leaseId?: string,
    sources?: SourceReport[],
  ): Promise<boolean> {
    const row = this.row(article);
    if (!row || !canFailGeneration(row.article, failedAt, leaseId)) return false;
    this.refund(row);
    const { leaseOwner: _owner, leaseExpiresAt: _until, ...rest } = row.article;
    row.article = {
      ...rest,
      state: 'error',
      creditsCharged: 0,
      lastError: errorText(reason),
      failedAt,
      ...(sources ? { failedSources: copy(sources) } : {}),
    };
    row.sweep = undefined;
    return true;
  }

  async holdForReview(
    ref: ArticleKey,
    owner: string,
    review: { outline: Outline; usage: TokenUsage; readyAt: string; expiresAt: string },
  ): Promise<boolean> {
    const row = this.row(ref);
    if (row?.article.state !== 'queued' || row.article.leaseOwner !== owner) return false;
    const { leaseOwner: _owner, leaseExpiresAt: _until, ...rest } = row.article;
    row.article = {
      ...rest,
      state: 'outline_ready',
      outline: copy(review.outline),
      outlineUsage: copy(review.usage),
      outlineExpiresAt: review.expiresAt,
    };
    row.sweep = { kind: 'outline', at: review.expiresAt };
    this.outlineEvents.push(ref.articleUuid);
    return true;
  }

  async approveOutline(
    article: Article,
    outline: Outline,
    _approvedAt: string,
    sendBy: string,
  ): Promise<boolean> {
    const row = this.row(article);
    if (row?.article.state !== 'outline_ready') return false;
    const { outlineExpiresAt: _expires, lastError: _error, ...rest } = row.article;
    row.article = {
      ...rest,
      ...approvedArticle(rest, copy(outline)),
      state: 'queued',
      generationAttempts: 0,
    };
    row.sweep = { kind: 'generation', at: sendBy };
    return true;
  }

  async expireOutline(ref: ArticleKey, expiredAt: string): Promise<boolean> {
    const row = this.row(ref);
    if (!row || !outlineExpired(row.article, expiredAt)) return false;
    this.refund(row);
    const { outlineExpiresAt: _expires, ...rest } = row.article;
    row.article = {
      ...rest,
      state: 'cancelled',
      creditsCharged: 0,
      cancelledAt: expiredAt,
      cancelReason: 'outline_expired',
    };
    row.queued = false;
    row.sweep = undefined;
    return true;
  }

  async listExpiredOutlines(dueBy: string, limit: number): Promise<Article[]> {
    return [...this.tables.articles.values()]
      .filter((row) => row.sweep?.kind === 'outline' && row.sweep.at <= dueBy)
      .slice(0, limit)
      .map((row) => copy(row.article));
  }

  async listDue(kind: 'reservation' | 'generation', dueBy: string, limit: number): Promise<Article[]> {
    return [...this.tables.articles.values()]
      .filter((row) => row.sweep?.kind === kind && row.sweep.at <= dueBy)
      .sort((a, b) => (a.sweep?.at ?? '').localeCompare(b.sweep?.at ?? ''))
      .slice(0, limit)
      .map((row) => copy(row.article));
  }

  async markResent(article: ArticleKey, nextCheckAt: string): Promise<void> {
    const row = this.row(article);
    if (row?.article.state !== 'queued') return;
    row.article.resends = (row.article.resends ?? 0) + 1;
    if (row.sweep) row.sweep.at = nextCheckAt;
  }

  async makeDeferralsDue(accountId: string, state: DeferredState, now: string): Promise<number> {
    let moved = 0;
    for (const row of this.rowsOf(accountId)) {
      if (row.queued && row.article.state === state && row.sweep) {
        row.sweep.at = now;
        moved++;
      }
    }
    return moved;
  }

  async *listQueuedGenerations(): AsyncIterable<QueuedGeneration[]> {
    const queued = [...this.tables.articles.values()]
      .filter((row) => row.article.state === 'queued' && row.sweep?.kind === 'generation')
      .map(({ article }) => ({
        accountId: article.accountId,
        articleUuid: article.articleUuid,
        ...(article.leaseOwner ? { leaseOwner: article.leaseOwner } : {}),
      }));
    for (let start = 0; start < queued.length; start += 100) yield queued.slice(start, start + 100);
  }

  async breakLease(article: QueuedGeneration): Promise<void> {
    const row = this.row(article);
    if (!article.leaseOwner || row?.article.state !== 'queued') return;
    if (row.article.leaseOwner !== article.leaseOwner) return;
    delete row.article.leaseOwner;
    delete row.article.leaseExpiresAt;
  }

  /** Credits >= price and the day below the limit, both taken, or neither. */
  private tryToReserve(accountId: string, reservation: Reservation): ReservationOutcome {
    const account = this.tables.accounts.get(accountId);
    const dayKey = key(accountId, reservation.day);
    const started = this.tables.dailyStarts.get(dayKey) ?? 0;
    if (!account || account.credits < reservation.price) return 'not_enough_credits';
    if (started >= reservation.dailyLimit) return 'daily_limit_reached';
    account.credits -= reservation.price;
    this.tables.dailyStarts.set(dayKey, started + 1);
    return 'reserved';
  }

  private refund(row: ArticleRow): void {
    const account = this.tables.accounts.get(row.article.accountId);
    if (account) account.credits += refundOf(row.article);
  }

  private countUsage(article: Article, generatedAt: string, credits: number): void {
    const dayKey = key(article.accountId, generatedAt.slice(0, 10));
    const day = this.tables.usageDays.get(dayKey) ?? {
      articlesGenerated: 0,
      creditsUsed: 0,
      websites: new Map(),
    };
    day.articlesGenerated += 1;
    day.creditsUsed += credits;
    if (article.websiteUuid) {
      const site = day.websites.get(article.websiteUuid) ?? { articlesGenerated: 0, creditsUsed: 0 };
      site.articlesGenerated += 1;
      site.creditsUsed += credits;
      day.websites.set(article.websiteUuid, site);
    }
    this.tables.usageDays.set(dayKey, day);
  }

  private put(row: ArticleRow): void {
    this.tables.articles.set(key(row.article.accountId, row.article.articleUuid), row);
  }

  private rowsOf(accountId: string): ArticleRow[] {
    return [...this.tables.articles.values()].filter((row) => row.article.accountId === accountId);
  }
}
