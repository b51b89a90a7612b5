/** Reading batches: the create's answer, `GET /v1/batches/{uuid}` (counts, items page by page) and the list. */
import { NotFoundError } from '../errors';
import { PER_PAGE, paginationEnvelope } from '../pagination';
import { toWireTime } from '../wire';
import type { Article } from './article';
import {
  type Batch,
  type BatchItemStatus,
  batchArticleUuids,
  batchItemStatus,
  countStatuses,
  isFinalItem,
} from './batch';
import type { BatchItemArticle, BatchStore } from './batch-ports';
import type { AcceptedBatch } from './create-batch';

export interface ReadBatchesDeps {
  batches: Pick<BatchStore, 'get' | 'list' | 'items'>;
}

/** A batch as every answer shows it (without its items). */
export function presentBatch(batch: Batch) {
  return {
    uuid: batch.batchUuid,
    status: batch.completedAt ? 'completed' : 'in_progress',
    created_at: toWireTime(batch.createdAt),
    completed_at: toWireTime(batch.completedAt),
    items_count: batch.rows.length,
    credits_reserved: batch.creditsReserved,
    schedule: presentSchedule(batch),
    rejected: batch.rejected,
  };
}

/** The calendar as it was computed: `timezone` is the zone used (the schedule's or the website's). */
function presentSchedule(batch: Batch) {
  return batch.schedule
    ? {
        start: batch.schedule.start,
        every: batch.schedule.every,
        at: batch.schedule.at,
        timezone: batch.schedule.timezone,
        weekdays: batch.schedule.weekdays ?? null,
      }
    : null;
}

function presentItem(
  baseUrl: string,
  row: number,
  articleUuid: string,
  status: BatchItemStatus,
  article: Pick<Article, 'publishAt'> | undefined,
) {
  return {
    row,
    article_uuid: articleUuid,
    article_url: `${baseUrl}/v1/articles/${articleUuid}/show`,
    status,
    publish_at: toWireTime(article?.publishAt),
  };
}

/** The 202 of `POST /v1/articles/batch`: the batch and every accepted item. */
export function acceptedBatchAnswer(accepted: AcceptedBatch, baseUrl: string) {
  const { batch, articles } = accepted;
  const batchUrl = `${baseUrl}/v1/batches/${batch.batchUuid}`;
  const waiting = articles.filter((article) => article.state !== 'queued').length;
  return {
    batch_uuid: batch.batchUuid,
    batch_url: batchUrl,
    info: `${articles.length} ${articles.length === 1 ? 'article is' : 'articles are'} on the waiting list${
      waiting > 0 ? ` (${waiting} waiting for credits or the daily limit)` : ''
    }${
      batch.rejected.length > 0
        ? `; ${batch.rejected.length} ${batch.rejected.length === 1 ? 'row was' : 'rows were'} refused (see rejected)`
        : ''
    }. Follow the batch at ${batchUrl}.`,
    items_count: articles.length,
    credits_reserved: batch.creditsReserved,
    schedule: presentSchedule(batch),
    rejected: batch.rejected,
    items: articles.map((article, index) =>
      presentItem(
        baseUrl,
        batch.rows[index] ?? index,
        article.articleUuid,
        batchItemStatus(article),
        article,
      ),
    ),
  };
}

/** Each item's status: its article's, or its reservation's while the article is not written yet. */
export function itemStatuses(batch: Batch, articles: (BatchItemArticle | undefined)[]): BatchItemStatus[] {
  return articles.map((article, index) => {
    if (article) return batchItemStatus(article);
    const outcome = batch.outcomes[index] ?? 'reserved';
    return outcome === 'reserved' ? 'queued' : outcome;
  });
}

/** Whether every item of the batch is final (its `batch.completed` is due). */
export function everyItemFinal(statuses: readonly BatchItemStatus[]): boolean {
  return statuses.every(isFinalItem);
}

/** `GET /v1/batches/{uuid}`: the batch, its counts, and one page of its items (in item order). */
export async function showBatch(
  deps: ReadBatchesDeps,
  accountId: string,
  batchUuid: string,
  page: number,
  baseUrl: string,
) {
  const batch = await deps.batches.get(accountId, batchUuid);
  if (!batch) throw new NotFoundError('Batch');
  const articles = await deps.batches.items(batch);
  const statuses = itemStatuses(batch, articles);
  const uuids = batchArticleUuids(batch.batchUuid, batch.rows.length);
  const from = (page - 1) * PER_PAGE;
  const items = uuids
    .slice(from, from + PER_PAGE)
    .map((uuid, offset) =>
      presentItem(
        baseUrl,
        batch.rows[from + offset] ?? from + offset,
        uuid,
        statuses[from + offset] ?? 'queued',
        articles[from + offset],
      ),
    );
  const envelope = paginationEnvelope(
    { items, page, total: uuids.length },
    `${baseUrl}/v1/batches/${batch.batchUuid}`,
  );
  return {
    data: { ...presentBatch(batch), counts: countStatuses(statuses), items: envelope.data },
    links: envelope.links,
    meta: envelope.meta,
  };
}

/** `GET /v1/batches`: the account's batches, newest first, 20 per page. */
export async function listBatches(deps: ReadBatchesDeps, accountId: string, page: number, baseUrl: string) {
  const { items, total } = await deps.batches.list(accountId, page, PER_PAGE);
  return paginationEnvelope({ items: items.map(presentBatch), page, total }, `${baseUrl}/v1/batches`);
}
