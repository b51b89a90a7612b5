/**
 * Batches in memory, with the DynamoDB adapter's semantics: the batch, the charge of its reserved
 * items and the day's count in one step (`planBatch`), the articles written by uuid (a second
 * writer leaves a stored one as it is); `failAfterWrites` makes the writer die half-way.
 */
import type { Article } from '../../../functions/core/articles/article';
import { deferral, deferredArticle, reservedArticle } from '../../../functions/core/articles/article-rules';
import {
  type Batch,
  type BatchItemStatus,
  batchArticleUuids,
  planBatch,
} from '../../../functions/core/articles/batch';
import type {
  BatchItemArticle,
  BatchReservation,
  BatchStore,
  BatchSweeps,
  NewBatch,
} from '../../../functions/core/articles/batch-ports';
import { reservationAt } from '../../../functions/core/articles/reservation-policy';
import { IdempotencyKeyReusedError } from '../../../functions/core/errors';
import { copy, type InMemoryTables, key } from './tables';

interface BatchRow {
  batch: Batch;
  requests?: Article[];
  dueAt?: string;
}

export class FakeBatchStore implements BatchStore, BatchSweeps {
  readonly batches = new Map<string, BatchRow>();
  /** `batch.completed` events recorded, by batch uuid. */
  readonly completedEvents: string[] = [];
  /** The writer dies after this many article writes (then is healthy again). */
  failAfterWrites: number | undefined;

  constructor(private readonly tables: InMemoryTables) {}

  async create(
    batch: NewBatch,
    articles: Article[],
    reservation: BatchReservation,
  ): Promise<{ batch: Batch; created: boolean }> {
    const existing = this.batches.get(key(batch.accountId, batch.batchUuid));
    if (existing) {
      if (existing.batch.requestHash !== undefined && existing.batch.requestHash !== batch.requestHash) {
        throw new IdempotencyKeyReusedError();
      }
      await this.finishWrites(existing.batch);
      return { batch: copy(this.row(existing.batch).batch), created: false };
    }
    const firstSeq = (this.tables.queueSeqs.get(batch.accountId) ?? 0) + 1;
    this.tables.queueSeqs.set(batch.accountId, firstSeq + articles.length - 1);
    const numbered = articles.map((article, index) => ({ ...copy(article), queueSeq: firstSeq + index }));
    const account = this.tables.accounts.get(batch.accountId);
    const dayKey = key(batch.accountId, reservation.day);
    const started = this.tables.dailyStarts.get(dayKey) ?? 0;
    const plan = planBatch(
      numbered.map((article) => article.estimatedCredits),
      account?.credits ?? 0,
      reservation.dailyLimit - started,
    );
    if (account) account.credits -= plan.charge;
    this.tables.dailyStarts.set(dayKey, started + plan.reserved);
    const stored: Batch = {
      ...copy(batch),
      outcomes: plan.outcomes,
      creditsReserved: plan.charge,
      written: false,
    };
    this.batches.set(key(batch.accountId, batch.batchUuid), {
      batch: stored,
      requests: numbered,
      dueAt: new Date(Date.parse(batch.createdAt) + 120_000).toISOString(),
    });
    await this.writeArticles(stored, numbered, reservation);
    return { batch: copy(this.row(stored).batch), created: true };
  }

  async get(accountId: string, batchUuid: string): Promise<Batch | undefined> {
    const row = this.batches.get(key(accountId, batchUuid));
    return row ? copy(row.batch) : undefined;
  }

  async list(accountId: string, page: number, perPage: number): Promise<{ items: Batch[]; total: number }> {
    const all = [...this.batches.values()]
      .map((row) => row.batch)
      .filter((batch) => batch.accountId === accountId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return { items: all.slice((page - 1) * perPage, page * perPage).map(copy), total: all.length };
  }

  async items(batch: Batch): Promise<(BatchItemArticle | undefined)[]> {
    return batchArticleUuids(batch.batchUuid, batch.rows.length).map((uuid) => {
      const row = this.tables.articles.get(key(batch.accountId, uuid));
      return row ? copy(row.article) : undefined;
    });
  }

  async listDue(dueBy: string, limit: number): Promise<Batch[]> {
    return [...this.batches.values()]
      .filter((row) => row.dueAt !== undefined && row.dueAt <= dueBy)
      .slice(0, limit)
      .map((row) => copy(row.batch));
  }

  async finishWrites(batch: Batch): Promise<void> {
    const row = this.row(batch);
    if (row.batch.written || !row.requests) return;
    await this.writeArticles(row.batch, row.requests, undefined);
  }

  async complete(
    batch: Batch,
    completedAt: string,
    _counts: Record<BatchItemStatus, number>,
  ): Promise<boolean> {
    const row = this.row(batch);
    if (row.batch.completedAt) return false;
    row.batch.completedAt = completedAt;
    row.dueAt = undefined;
    this.completedEvents.push(batch.batchUuid);
    return true;
  }

  async postpone(batch: Batch, nextCheckAt: string): Promise<void> {
    const row = this.row(batch);
    if (row.dueAt !== undefined) row.dueAt = nextCheckAt;
  }

  private row(batch: Pick<Batch, 'accountId' | 'batchUuid'>): BatchRow {
    const row = this.batches.get(key(batch.accountId, batch.batchUuid));
    if (!row) throw new Error(`No batch ${batch.batchUuid}`);
    return row;
  }

  private async writeArticles(
    batch: Batch,
    articles: Article[],
    given: BatchReservation | undefined,
  ): Promise<void> {
    const { price: _price, ...rebuilt } = reservationAt(new Date(batch.createdAt), 0, 0);
    const reservation = given ?? rebuilt;
    for (const [index, article] of articles.entries()) {
      if (this.tables.articles.has(key(article.accountId, article.articleUuid))) continue;
      if (this.failAfterWrites !== undefined && this.failAfterWrites-- <= 0) {
        this.failAfterWrites = undefined;
        throw new Error('the writer died');
      }
      const outcome = batch.outcomes[index] ?? 'not_enough_credits';
      const priced = { ...reservation, price: article.estimatedCredits };
      this.tables.articles.set(
        key(article.accountId, article.articleUuid),
        outcome === 'reserved'
          ? {
              article: reservedArticle(article, priced),
              queued: true,
              sweep: { kind: 'generation', at: priced.sendBy },
            }
          : {
              article: deferredArticle(article, outcome, priced),
              queued: true,
              sweep: { kind: 'reservation', at: deferral(outcome, priced).retryAt },
            },
      );
    }
    const row = this.row(batch);
    row.batch.written = true;
    row.requests = undefined;
    row.dueAt = new Date(Date.parse(reservation.now) + 60_000).toISOString();
  }
}
