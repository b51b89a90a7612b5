/**
 * Batches (core/articles/batch.ts) in the Batches table, and the writes that accept one:
 *
 * 1. the account's next queue numbers for all items, taken at once;
 * 2. the items' articles as prepared (`batch#<uuid>#requests#<n>` items, a few hundred KB at most),
 *    so that anyone can write them later;
 * 3. ONE transaction of a few items whatever the batch's size (DynamoDB allows 100 per
 *    transaction; a batch has up to 500): the batch item (conditional on its uuid being new),
 *    the credits of every reserved item subtracted (`credits >= :charge`), the day's count raised
 *    by the reserved items (`generations <= limit - n`), and the queue counters of all items;
 * 4. the article items, each a Put conditional on its uuid being new (uuids derive from the
 *    batch), so any number of writers can run it;
 * 5. the batch marked written and its stored requests deleted.
 *
 * A writer that stops after 3 leaves a batch due for the sweeper (`sweepAt`), which does 4 and 5
 * (`finishWrites`), as does a retry with the same Idempotency-Key: no article is lost, and the
 * charge, made once in 3, is never made again.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import type { Article } from '../../core/articles/article';
import { deferral, deferredArticle, reservedArticle } from '../../core/articles/article-rules';
import {
  BATCH_CHECK_INTERVAL_MS,
  BATCH_WRITE_GRACE_MS,
  type Batch,
  type BatchItemStatus,
  batchArticleUuids,
  planBatch,
} from '../../core/articles/batch';
import type {
  BatchItemArticle,
  BatchReservation,
  BatchStore,
  BatchSweeps,
  NewBatch,
} from '../../core/articles/batch-ports';
import type { ReservationOutcome } from '../../core/articles/ports';
import { reservationAt } from '../../core/articles/reservation-policy';
import { IdempotencyKeyReusedError } from '../../core/errors';
import { articleToItem, type Item } from './article-item';
import { batchGet, batchWrite } from './batches';
import type { EventOutbox } from './event-outbox';
import { SWEEP_BUCKET } from './keys';
import { queueCountUpdatesOfRun, takeQueueSeqs } from './queue-positions';
import { countQuery, queryAll, queryFirst } from './reads';
import { BATCH_INDEX } from './table-definitions';
import { conditionFailed, transactWithRetry } from './transactions';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface BatchTables {
  batches: string;
  articles: string;
  accounts: string;
  dailyUsage: string;
}

/** Partitions of the batch sweep index. */
const BATCH_SWEEP_SHARDS = 4;
/** Stored requests per item (kept well under DynamoDB's 400 KB: a create is at most a few KB). */
const REQUESTS_PER_ITEM = 25;
/** Article puts side by side. */
const WRITE_CONCURRENCY = 32;
/** Daily usage items expire a few days after their day (as in article-reservations.ts). */
const DAILY_USAGE_TTL_SECONDS = 3 * 24 * 3600;

const OUTCOME_LETTERS: Record<ReservationOutcome, string> = {
  reserved: 'r',
  not_enough_credits: 'c',
  daily_limit_reached: 'd',
};
const OUTCOMES_BY_LETTER = Object.fromEntries(
  Object.entries(OUTCOME_LETTERS).map(([outcome, letter]) => [letter, outcome as ReservationOutcome]),
);

const batchKey = (accountId: string, batchUuid: string) => ({ accountId, batchKey: `batch#${batchUuid}` });
const requestsPrefix = (batchUuid: string) => `batch#${batchUuid}#requests#`;
const sweepBucket = (batchUuid: string) =>
  `batch#${Number.parseInt(batchUuid.replace(/-/g, '').slice(-4), 16) % BATCH_SWEEP_SHARDS || 0}`;

const ITEM_PROJECTION = {
  expression: '#uuid, #state, #website, #publishState, #publishAt, #permalink, #keyword',
  names: {
    '#uuid': 'articleUuid',
    '#state': 'state',
    '#website': 'websiteUuid',
    '#publishState': 'publishState',
    '#publishAt': 'publishAt',
    '#permalink': 'cmsPermalink',
    '#keyword': 'keyword',
  },
};

export class DynamoBatchRepository implements BatchStore, BatchSweeps {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: BatchTables,
    private readonly events?: EventOutbox,
  ) {}

  async create(
    batch: NewBatch,
    articles: Article[],
    reservation: BatchReservation,
  ): Promise<{ batch: Batch; created: boolean }> {
    const existing = await this.get(batch.accountId, batch.batchUuid);
    if (existing) return { batch: await this.resume(existing, batch), created: false };

    const firstSeq = await takeQueueSeqs(this.client, this.tables.articles, batch.accountId, articles.length);
    const numbered = articles.map((article, index) => ({ ...article, queueSeq: firstSeq + index }));
    await this.storeRequests(batch, numbered);
    const prices = numbered.map((article) => article.estimatedCredits);
    let pending: Batch | undefined;
    const accepted = await transactWithRetry<'committed' | 'exists'>(
      this.client,
      async () => {
        const [credits, started] = await Promise.all([
          this.credits(batch.accountId),
          this.startedOn(batch.accountId, reservation.day),
        ]);
        const plan = planBatch(prices, credits, reservation.dailyLimit - started);
        const stored: Batch = {
          ...batch,
          outcomes: plan.outcomes,
          creditsReserved: plan.charge,
          written: false,
        };
        pending = stored;
        return {
          TransactItems: [
            {
              Put: {
                TableName: this.tables.batches,
                Item: {
                  ...toItem(stored),
                  sweepBucket: sweepBucket(batch.batchUuid),
                  sweepAt: new Date(Date.parse(batch.createdAt) + BATCH_WRITE_GRACE_MS).toISOString(),
                },
                ConditionExpression: 'attribute_not_exists(batchKey)',
              },
            },
            ...this.reservationUpdates(batch.accountId, plan, reservation),
            ...queueCountUpdatesOfRun(this.tables.articles, batch.accountId, firstSeq, articles.length),
          ],
        };
      },
      'committed',
      (codes) => {
        if (conditionFailed(codes, 0)) return { result: 'exists' };
        // The credits or the day's count moved since they were read: read again and plan again.
        if (conditionFailed(codes, 1) || conditionFailed(codes, 2)) return 'retry';
        return undefined;
      },
    );
    if (accepted === 'exists' || !pending) {
      // Another copy stored it between the read and the transaction.
      const stored = await this.get(batch.accountId, batch.batchUuid);
      if (!stored) throw new Error(`Batch ${batch.batchUuid} could not be stored`);
      return { batch: await this.resume(stored, batch), created: false };
    }
    const stored: Batch = pending;
    await this.writeArticles(stored, numbered, reservation, 'first');
    return { batch: { ...stored, written: true }, created: true };
  }

  async get(accountId: string, batchUuid: string): Promise<Batch | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tables.batches,
        Key: batchKey(accountId, batchUuid),
        ConsistentRead: true,
      }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  async list(accountId: string, page: number, perPage: number): Promise<{ items: Batch[]; total: number }> {
    const query = {
      TableName: this.tables.batches,
      IndexName: BATCH_INDEX.byCreation,
      KeyConditionExpression: 'accountId = :accountId',
      ExpressionAttributeValues: { ':accountId': accountId },
      ScanIndexForward: false,
    };
    const [items, total] = await Promise.all([
      queryFirst(this.client, query, page * perPage),
      countQuery(this.client, query),
    ]);
    return { items: items.slice((page - 1) * perPage).map(fromItem), total };
  }

  async items(batch: Batch): Promise<(BatchItemArticle | undefined)[]> {
    const uuids = batchArticleUuids(batch.batchUuid, batch.rows.length);
    const found = await batchGet(
      this.client,
      this.tables.articles,
      uuids.map((articleUuid) => ({ accountId: batch.accountId, articleUuid })),
      ITEM_PROJECTION,
    );
    const byUuid = new Map(
      found.map((item) => [String(item.articleUuid), item as unknown as BatchItemArticle]),
    );
    return uuids.map((uuid) => byUuid.get(uuid));
  }

  async listDue(dueBy: string, limit: number): Promise<Batch[]> {
    const due: Batch[] = [];
    for (let shard = 0; shard < BATCH_SWEEP_SHARDS && due.length < limit; shard++) {
      const items = await queryFirst(
        this.client,
        {
          TableName: this.tables.batches,
          IndexName: BATCH_INDEX.sweep,
          KeyConditionExpression: 'sweepBucket = :bucket AND sweepAt <= :dueBy',
          ExpressionAttributeValues: { ':bucket': `batch#${shard}`, ':dueBy': dueBy },
        },
        limit - due.length,
      );
      due.push(...items.map(fromItem));
    }
    return due;
  }

  async finishWrites(batch: Batch): Promise<void> {
    if (batch.written) return;
    const articles = await this.storedRequests(batch);
    await this.writeArticles(batch, articles, undefined);
  }

  async complete(
    batch: Batch,
    completedAt: string,
    counts: Record<BatchItemStatus, number>,
  ): Promise<boolean> {
    const staged = await this.events?.stage(batch.accountId, 'batch.completed', {
      kind: 'batch',
      uuid: batch.batchUuid,
    });
    const completed = await transactWithRetry<boolean>(
      this.client,
      async () => ({
        TransactItems: [
          {
            Update: {
              TableName: this.tables.batches,
              Key: batchKey(batch.accountId, batch.batchUuid),
              UpdateExpression: 'SET completedAt = :at REMOVE sweepBucket, sweepAt',
              ConditionExpression: 'attribute_exists(batchKey) AND attribute_not_exists(completedAt)',
              ExpressionAttributeValues: { ':at': completedAt },
            },
          },
          ...(staged ? [await staged.put({ kind: 'batch', batch: { ...batch, completedAt }, counts })] : []),
        ],
      }),
      true,
      (codes) => (conditionFailed(codes, 0) ? { result: false } : undefined),
    );
    if (completed) await staged?.committed();
    return completed;
  }

  async postpone(batch: Batch, nextCheckAt: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.batches,
          Key: batchKey(batch.accountId, batch.batchUuid),
          UpdateExpression: 'SET sweepAt = :at',
          ConditionExpression: 'attribute_exists(sweepBucket)',
          ExpressionAttributeValues: { ':at': nextCheckAt },
        }),
      );
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
  }

  /** A batch found stored: the same request's (its writes finished), or another's under the same key. */
  private async resume(stored: Batch, batch: NewBatch): Promise<Batch> {
    if (stored.requestHash !== undefined && stored.requestHash !== batch.requestHash) {
      throw new IdempotencyKeyReusedError();
    }
    await this.finishWrites(stored);
    return { ...stored, written: true };
  }

  /** The conditional updates of the charge and the day's count, for the plan's reserved items. */
  private reservationUpdates(
    accountId: string,
    plan: ReturnType<typeof planBatch>,
    reservation: BatchReservation,
  ): TransactItem[] {
    if (plan.reserved === 0) return [];
    return [
      {
        Update: {
          TableName: this.tables.accounts,
          Key: { accountId },
          UpdateExpression: 'SET credits = credits - :charge',
          ConditionExpression: 'credits >= :charge',
          ExpressionAttributeValues: { ':charge': plan.charge },
        },
      },
      {
        Update: {
          TableName: this.tables.dailyUsage,
          Key: { accountId, day: reservation.day },
          UpdateExpression:
            'SET generations = if_not_exists(generations, :zero) + :reserved, expiresAt = :expiresAt',
          ConditionExpression: 'attribute_not_exists(generations) OR generations <= :before',
          ExpressionAttributeValues: {
            ':zero': 0,
            ':reserved': plan.reserved,
            ':before': reservation.dailyLimit - plan.reserved,
            ':expiresAt':
              Math.floor(Date.parse(`${reservation.day}T00:00:00Z`) / 1000) + DAILY_USAGE_TTL_SECONDS,
          },
        },
      },
    ];
  }

  private async credits(accountId: string): Promise<number> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tables.accounts,
        Key: { accountId },
        ConsistentRead: true,
        ProjectionExpression: 'credits',
      }),
    );
    return Number(Item?.credits ?? 0);
  }

  private async startedOn(accountId: string, day: string): Promise<number> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tables.dailyUsage,
        Key: { accountId, day },
        ConsistentRead: true,
        ProjectionExpression: 'generations',
      }),
    );
    return Number(Item?.generations ?? 0);
  }

  /** The prepared articles (numbered), in items of REQUESTS_PER_ITEM, until the articles are written. */
  private async storeRequests(batch: NewBatch, articles: Article[]): Promise<void> {
    const puts = [];
    for (let start = 0; start < articles.length; start += REQUESTS_PER_ITEM) {
      puts.push({
        PutRequest: {
          Item: {
            accountId: batch.accountId,
            batchKey: `${requestsPrefix(batch.batchUuid)}${String(start / REQUESTS_PER_ITEM).padStart(3, '0')}`,
            articles: JSON.stringify(articles.slice(start, start + REQUESTS_PER_ITEM)),
          },
        },
      });
    }
    await batchWrite(
      this.client,
      this.tables.batches,
      puts,
      `Could not store the requests of batch ${batch.batchUuid}`,
    );
  }

  private async storedRequests(batch: Batch): Promise<Article[]> {
    const items = await queryAll(this.client, {
      TableName: this.tables.batches,
      KeyConditionExpression: 'accountId = :accountId AND begins_with(batchKey, :prefix)',
      ExpressionAttributeValues: {
        ':accountId': batch.accountId,
        ':prefix': requestsPrefix(batch.batchUuid),
      },
      ConsistentRead: true,
    });
    return items
      .sort((a, b) => String(a.batchKey).localeCompare(String(b.batchKey)))
      .flatMap((item) => JSON.parse(String(item.articles)) as Article[]);
  }

  /**
   * Puts every article not stored yet, in the state its reservation gave it (the batch's outcomes),
   * then marks the batch written (due for its first completion check) and deletes its requests.
   */
  private async writeArticles(
    batch: Batch,
    articles: Article[],
    given: BatchReservation | undefined,
    writer: 'first' | 'recovery' = 'recovery',
  ): Promise<void> {
    const reservation = given ?? reservationOfBatch(batch);
    const items = articles.map((article, index): Item => {
      const outcome = batch.outcomes[index] ?? 'not_enough_credits';
      const priced = { ...reservation, price: article.estimatedCredits };
      return outcome === 'reserved'
        ? articleToItem(reservedArticle(article, priced), {
            queued: true,
            sweep: { kind: SWEEP_BUCKET.generation, at: priced.sendBy },
          })
        : articleToItem(deferredArticle(article, outcome, priced), {
            queued: true,
            sweep: { kind: SWEEP_BUCKET.reservation, at: deferral(outcome, priced).retryAt },
          });
    });
    if (writer === 'first') {
      // The request that committed the reservation a moment ago: nobody else knows these uuids
      // yet (no message was sent; the sweeper waits BATCH_WRITE_GRACE_MS, far beyond an API
      // call's life; a copy under the same key waits for this one), so puts without a
      // condition, 25 a call, write exactly what a conditional put would.
      await batchWrite(
        this.client,
        this.tables.articles,
        items.map((item) => ({ PutRequest: { Item: item } })),
        `Could not write the articles of batch ${batch.batchUuid}`,
      );
    }
    const limit = pLimit(WRITE_CONCURRENCY);
    await Promise.all(
      (writer === 'first' ? [] : items).map((item) =>
        limit(async () => {
          try {
            await this.client.send(
              new PutCommand({
                TableName: this.tables.articles,
                Item: item,
                ConditionExpression: 'attribute_not_exists(articleUuid)',
              }),
            );
          } catch (error) {
            // Written by an earlier writer (and perhaps moved on since): left as it is.
            if (!conditionFailed(error)) throw error;
          }
        }),
      ),
    );
    await this.client.send(
      new UpdateCommand({
        TableName: this.tables.batches,
        Key: batchKey(batch.accountId, batch.batchUuid),
        UpdateExpression: batch.completedAt ? 'SET written = :true' : 'SET written = :true, sweepAt = :next',
        ExpressionAttributeValues: {
          ':true': true,
          ...(batch.completedAt
            ? {}
            : { ':next': new Date(Date.parse(reservation.now) + BATCH_CHECK_INTERVAL_MS).toISOString() }),
        },
      }),
    );
    const requests = await queryAll(this.client, {
      TableName: this.tables.batches,
      KeyConditionExpression: 'accountId = :accountId AND begins_with(batchKey, :prefix)',
      ExpressionAttributeValues: {
        ':accountId': batch.accountId,
        ':prefix': requestsPrefix(batch.batchUuid),
      },
      ProjectionExpression: 'accountId, batchKey',
    });
    if (requests.length > 0) {
      await batchWrite(
        this.client,
        this.tables.batches,
        requests.map((key) => ({ DeleteRequest: { Key: key } })),
        `Could not delete the requests of batch ${batch.batchUuid}`,
      );
    }
  }
}

/**
 * The reservation a batch's articles were written with, rebuilt from the batch (a recovery writes
 * them as the interrupted writer would have: the same times, the same sweep).
 */
function reservationOfBatch(batch: Batch): BatchReservation {
  const { price: _price, ...reservation } = reservationAt(new Date(batch.createdAt), 0, 0);
  return reservation;
}

function toItem(batch: Batch): Item {
  return {
    ...batchKey(batch.accountId, batch.batchUuid),
    batchUuid: batch.batchUuid,
    createdAt: batch.createdAt,
    listSortKey: `${batch.createdAt}#${batch.batchUuid}`,
    ...(batch.requestHash !== undefined ? { requestHash: batch.requestHash } : {}),
    rows: batch.rows,
    outcomes: batch.outcomes.map((outcome) => OUTCOME_LETTERS[outcome]).join(''),
    creditsReserved: batch.creditsReserved,
    rejected: batch.rejected,
    ...(batch.schedule ? { schedule: batch.schedule } : {}),
    written: batch.written,
    ...(batch.completedAt ? { completedAt: batch.completedAt } : {}),
  };
}

function fromItem(item: Item): Batch {
  return {
    accountId: String(item.accountId),
    batchUuid: String(item.batchUuid),
    createdAt: String(item.createdAt),
    ...(item.requestHash !== undefined ? { requestHash: String(item.requestHash) } : {}),
    rows: (item.rows as number[]).map(Number),
    outcomes: [...String(item.outcomes)].map((letter) => OUTCOMES_BY_LETTER[letter] ?? 'not_enough_credits'),
    creditsReserved: Number(item.creditsReserved),
    rejected: (item.rejected as Batch['rejected'] | undefined) ?? [],
    ...(item.schedule ? { schedule: item.schedule as Batch['schedule'] } : {}),
    written: item.written === true,
    ...(item.completedAt ? { completedAt: String(item.completedAt) } : {}),
  };
}
