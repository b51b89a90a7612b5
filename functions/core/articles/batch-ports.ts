/** What the batch use cases need from the outside world (create-batch.ts, read-batches.ts, sweep-batches.ts). */
import type { Article } from './article';
import type { Batch, BatchItemStatus } from './batch';
import type { Reservation } from './ports';

/** A batch as the create hands it to the store: the reservation's outcome is the store's to find. */
export type NewBatch = Omit<Batch, 'outcomes' | 'creditsReserved' | 'written' | 'completedAt'>;

/** The reservation of a batch: every item's price is its article's `estimatedCredits`. */
export type BatchReservation = Omit<Reservation, 'price'>;

/** What a batch's counts and item list show of each article. */
export type BatchItemArticle = Pick<
  Article,
  'articleUuid' | 'state' | 'websiteUuid' | 'publishState' | 'publishAt' | 'cmsPermalink' | 'keyword'
>;

export interface BatchStore {
  /**
   * Stores the batch and its articles (in item order, uuids from `batchArticleUuid`) and reserves
   * them in ONE step (`planBatch`: one conditional update of the account's credits and one of the
   * day's count for the whole batch), then writes the articles, queued or deferred. A batch of
   * that uuid already stored (a retry under the same Idempotency-Key) is returned as it is, after
   * finishing its article writes, with `created: false`; one stored by another request is
   * refused (IdempotencyKeyReusedError). A writer that stops half-way leaves the batch to the
   * sweeper's `finishWrites`: no article is lost, nothing is charged twice.
   */
  create(
    batch: NewBatch,
    articles: Article[],
    reservation: BatchReservation,
  ): Promise<{ batch: Batch; created: boolean }>;
  get(accountId: string, batchUuid: string): Promise<Batch | undefined>;
  /** The account's batches, newest first. */
  list(accountId: string, page: number, perPage: number): Promise<{ items: Batch[]; total: number }>;
  /** Every item's article as it is now, in item order (undefined where none is stored yet). */
  items(batch: Batch): Promise<(BatchItemArticle | undefined)[]>;
}

/** The sweeper's side of batches: finishing interrupted writes and recording completion. */
export interface BatchSweeps {
  /** Batches not completed whose next look is due by `dueBy`, at most `limit`. */
  listDue(dueBy: string, limit: number): Promise<Batch[]>;
  /** Writes the articles an interrupted create left unwritten (from the stored requests); marks it written. */
  finishWrites(batch: Batch): Promise<void>;
  /**
   * Marks the batch completed at `completedAt` with its `batch.completed` event (the batch and
   * `counts`), in one write; false when it was completed already.
   */
  complete(batch: Batch, completedAt: string, counts: Record<BatchItemStatus, number>): Promise<boolean>;
  /** The next look at an unfinished batch. */
  postpone(batch: Batch, nextCheckAt: string): Promise<void>;
  items: BatchStore['items'];
}
