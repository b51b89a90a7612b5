/**
 * Articles in DynamoDB. Credits, daily usage, the list sequence and website counters change in
 * the same transactions as the article, so retries and concurrency never charge twice.
 */
import { createHash } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  QueryCommand,
  type QueryCommandInput,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Article, ArticleState } from '../../core/articles/article';
import type {
  ArticlePage,
  ArticleStore,
  DeferredState,
  GenerationMessage,
  GenerationResult,
  Reservation,
  ReservationOutcome,
} from '../../core/articles/ports';
import type { QueuedGenerations } from '../../core/articles/resend-unfinished';
import { slugify } from '../../core/slug';
import { articleKeys, SWEEP_BUCKET, websiteKeys } from './keys';
import { countQuery } from './reads';
import { ARTICLE_INDEX } from './table-definitions';
import { isConditionFailure, transactWithRetry } from './transactions';

export interface ArticleTables {
  articles: string;
  accounts: string;
  dailyUsage: string;
  websites: string;
}

/** Attributes that only serve the indexes; stripped when reading. */
const INDEX_ATTRIBUTES = ['queueSortKey', 'sweepBucket', 'sweepAt'] as const;
/** Daily usage items expire a few days after their day. */
const DAILY_USAGE_TTL_SECONDS = 3 * 24 * 3600;
/** Time the worker has to publish before the sweeper takes over. */
const PUBLISH_GRACE_MS = 5 * 60 * 1000;

type Item = Record<string, unknown>;
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export class DynamoArticleRepository implements ArticleStore, QueuedGenerations {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: ArticleTables,
  ) {}

  async createWithReservation(article: Article, reservation: Reservation): Promise<ReservationOutcome> {
    const outcome = await this.reserve(article, reservation, (queued) => ({
      Put: {
        TableName: this.tables.articles,
        Item: queued,
        ConditionExpression: 'attribute_not_exists(articleUuid)',
      },
    }));
    if (outcome === 'reserved') return outcome;
    if (outcome === undefined) return this.outcomeOfStored(article);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tables.articles,
          Item: deferredItem(article, outcome, reservation),
          ConditionExpression: 'attribute_not_exists(articleUuid)',
        }),
      );
    } catch (error) {
      // A retried put whose first try was stored: the article is there already.
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      return this.outcomeOfStored(article);
    }
    return outcome;
  }

  async retryReservation(
    article: Article,
    reservation: Reservation,
  ): Promise<ReservationOutcome | undefined> {
    const outcome = await this.reserve(article, reservation, (queued) => ({
      Update: {
        TableName: this.tables.articles,
        Key: articleKeys.article(article.accountId, article.articleUuid),
        UpdateExpression:
          'SET #state = :queued, creditsCharged = :price, startGenerationAt = :now, sweepBucket = :bucket, sweepAt = :sweepAt',
        ConditionExpression: '#state IN (:notEnoughCredits, :dailyLimitReached)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':queued': 'queued',
          ':price': queued.creditsCharged,
          ':now': queued.startGenerationAt,
          ':bucket': queued.sweepBucket,
          ':sweepAt': queued.sweepAt,
          ':notEnoughCredits': 'not_enough_credits',
          ':dailyLimitReached': 'daily_limit_reached',
        },
      },
    }));
    if (outcome === undefined || outcome === 'reserved') return outcome;
    const deferred = deferredItem(article, outcome, reservation);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.articles,
          Key: articleKeys.article(article.accountId, article.articleUuid),
          UpdateExpression: `SET #state = :state, sweepAt = :sweepAt${deferred.startGenerationAt ? ', startGenerationAt = :start' : ''}`,
          ConditionExpression: '#state IN (:notEnoughCredits, :dailyLimitReached)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':state': outcome,
            ':sweepAt': deferred.sweepAt,
            ':notEnoughCredits': 'not_enough_credits',
            ':dailyLimitReached': 'daily_limit_reached',
            ...(deferred.startGenerationAt ? { ':start': deferred.startGenerationAt } : {}),
          },
        }),
      );
    } catch (error) {
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return undefined;
      throw error;
    }
    return outcome;
  }

  /** What became of an article stored by an earlier try of the same create. */
  private async outcomeOfStored(article: Article): Promise<ReservationOutcome> {
    const stored = await this.get(article.accountId, article.articleUuid);
    if (stored?.state === 'not_enough_credits' || stored?.state === 'daily_limit_reached')
      return stored.state;
    if (stored) return 'reserved';
    throw new Error(`Article ${article.articleUuid} could not be stored`);
  }

  /**
   * One transaction: the article write, credits >= price then subtract, today's count below the
   * limit then add one. Returns why it could not reserve, or undefined when the article write's
   * own condition failed (someone else already moved it on).
   */
  private async reserve(
    article: Article,
    reservation: Reservation,
    articleWrite: (queued: Item) => TransactItem,
  ): Promise<ReservationOutcome | undefined> {
    const queued = queuedItem(article, reservation);
    return transactWithRetry<ReservationOutcome | undefined>(
      this.client,
      async (attempt) => ({
        // The SDK's own retries (e.g. after a lost response) resend this token, so a
        // transaction that did commit is not applied, and charged, a second time.
        ClientRequestToken: requestToken(article.articleUuid, reservation.now, attempt),
        TransactItems: [
          articleWrite(queued),
          {
            Update: {
              TableName: this.tables.accounts,
              Key: { accountId: article.accountId },
              UpdateExpression: 'SET credits = credits - :price',
              ConditionExpression: 'credits >= :price',
              ExpressionAttributeValues: { ':price': reservation.price },
            },
          },
          {
            Update: {
              TableName: this.tables.dailyUsage,
              Key: { accountId: article.accountId, day: reservation.day },
              UpdateExpression:
                'SET generations = if_not_exists(generations, :zero) + :one, expiresAt = :expiresAt',
              ConditionExpression: 'attribute_not_exists(generations) OR generations < :limit',
              ExpressionAttributeValues: {
                ':zero': 0,
                ':one': 1,
                ':limit': reservation.dailyLimit,
                ':expiresAt':
                  Math.floor(Date.parse(`${reservation.day}T00:00:00Z`) / 1000) + DAILY_USAGE_TTL_SECONDS,
              },
            },
          },
        ],
      }),
      'reserved',
      (codes) => {
        if (isConditionFailure(codes[0])) return { result: undefined };
        if (isConditionFailure(codes[1])) return { result: 'not_enough_credits' };
        if (isConditionFailure(codes[2])) return { result: 'daily_limit_reached' };
        return undefined;
      },
    );
  }

  async get(accountId: string, articleUuid: string): Promise<Article | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tables.articles,
        Key: articleKeys.article(accountId, articleUuid),
        ConsistentRead: true,
      }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  async completeGeneration(article: Article, result: GenerationResult): Promise<boolean> {
    let countOnWebsite = article.websiteUuid !== undefined;
    return transactWithRetry<boolean>(
      this.client,
      async () => {
        const { Item: account } = await this.client.send(
          new GetCommand({
            TableName: this.tables.accounts,
            Key: { accountId: article.accountId },
            ProjectionExpression: 'generatedCount',
            ConsistentRead: true,
          }),
        );
        const previous = Number(account?.generatedCount ?? 0);
        const onWebsite = article.websiteUuid !== undefined;
        const slug = onWebsite ? (article.slug ?? slugify(result.title)) : undefined;
        const values: Item = {
          ':generated': 'generated',
          ':queued': 'queued',
          ':title': result.title,
          ':content': result.content,
          ':words': result.totalWords,
          ':providerModel': result.providerModel,
          ':promptTokens': result.promptTokens,
          ':completionTokens': result.completionTokens,
          ':generatedAt': result.generatedAt,
          ':seq': previous + 1,
        };
        let update =
          'SET #state = :generated, generatedTitle = :title, content = :content, totalWords = :words, providerModel = :providerModel, promptTokens = :promptTokens, completionTokens = :completionTokens, generatedAt = :generatedAt, generatedSeq = :seq';
        if (onWebsite) {
          update +=
            ', slug = :slug, publishState = :pending, sweepBucket = :publication, sweepAt = :publishCheck REMOVE queueSortKey';
          Object.assign(values, {
            ':slug': slug,
            ':pending': 'pending',
            ':publication': SWEEP_BUCKET.publication,
            ':publishCheck': new Date(Date.parse(result.generatedAt) + PUBLISH_GRACE_MS).toISOString(),
          });
        } else {
          update += ' REMOVE queueSortKey, sweepBucket, sweepAt';
        }
        const transactItems: TransactItem[] = [
          {
            Update: {
              TableName: this.tables.articles,
              Key: articleKeys.article(article.accountId, article.articleUuid),
              UpdateExpression: update,
              ConditionExpression: '#state = :queued',
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: values,
            },
          },
          {
            Update: {
              TableName: this.tables.accounts,
              Key: { accountId: article.accountId },
              UpdateExpression: 'SET generatedCount = :seq',
              ConditionExpression:
                previous === 0
                  ? 'attribute_not_exists(generatedCount) OR generatedCount = :previous'
                  : 'generatedCount = :previous',
              ExpressionAttributeValues: { ':seq': previous + 1, ':previous': previous },
            },
          },
        ];
        if (countOnWebsite && article.websiteUuid) {
          transactItems.push({
            Update: {
              TableName: this.tables.websites,
              Key: websiteKeys.website(article.accountId, article.websiteUuid),
              UpdateExpression: 'ADD articlesCount :one, totalCreditsUsed :credits',
              ConditionExpression: 'attribute_exists(websiteKey)',
              ExpressionAttributeValues: { ':one': 1, ':credits': article.creditsCharged },
            },
          });
        }
        return { TransactItems: transactItems };
      },
      true,
      (codes) => {
        // Completed (or failed) by another delivery.
        if (isConditionFailure(codes[0])) return { result: false };
        // The website was deleted meanwhile: the article is still generated, just not counted there.
        if (isConditionFailure(codes[2])) {
          countOnWebsite = false;
          return 'retry';
        }
        // Another article of the account took this place in the list first: read it again.
        if (isConditionFailure(codes[1])) return 'retry';
        return undefined;
      },
    );
  }

  async failGeneration(article: Article, reason: string, failedAt: string): Promise<boolean> {
    return transactWithRetry<boolean>(
      this.client,
      async () => {
        const current = await this.get(article.accountId, article.articleUuid);
        if (current?.state !== 'queued') return { result: false };
        const refund = current.creditsCharged;
        const transactItems: TransactItem[] = [
          {
            Update: {
              TableName: this.tables.articles,
              Key: articleKeys.article(article.accountId, article.articleUuid),
              UpdateExpression:
                'SET #state = :error, creditsCharged = :zero, lastError = :reason, failedAt = :failedAt REMOVE sweepBucket, sweepAt',
              ConditionExpression: '#state = :queued AND creditsCharged = :refund',
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: {
                ':error': 'error',
                ':zero': 0,
                ':reason': reason.slice(0, 500),
                ':failedAt': failedAt,
                ':queued': 'queued',
                ':refund': refund,
              },
            },
          },
        ];
        if (refund > 0) {
          transactItems.push({
            Update: {
              TableName: this.tables.accounts,
              Key: { accountId: article.accountId },
              UpdateExpression: 'ADD credits :refund',
              ExpressionAttributeValues: { ':refund': refund },
            },
          });
        }
        return { TransactItems: transactItems };
      },
      true,
      // Not queued any more (failed or completed by another delivery): nothing to refund.
      (codes) => (isConditionFailure(codes[0]) ? { result: false } : undefined),
    );
  }

  async postponeStuckCheck(article: Article, nextCheckAt: string): Promise<void> {
    await this.updateQueuedSweep(article, nextCheckAt, false);
  }

  async markRequeued(article: Article, nextCheckAt: string): Promise<void> {
    await this.updateQueuedSweep(article, nextCheckAt, true);
  }

  private async updateQueuedSweep(
    article: Article,
    nextCheckAt: string,
    countRequeue: boolean,
  ): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.articles,
          Key: articleKeys.article(article.accountId, article.articleUuid),
          UpdateExpression: countRequeue
            ? 'SET sweepAt = :at, requeues = if_not_exists(requeues, :zero) + :one'
            : 'SET sweepAt = :at',
          ConditionExpression: '#state = :queued',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':at': nextCheckAt,
            ':queued': 'queued',
            ...(countRequeue ? { ':zero': 0, ':one': 1 } : {}),
          },
        }),
      );
    } catch (error) {
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    }
  }

  async listGenerated(accountId: string, page: number, perPage: number): Promise<ArticlePage> {
    const { Item: account } = await this.client.send(
      new GetCommand({
        TableName: this.tables.accounts,
        Key: { accountId },
        ProjectionExpression: 'generatedCount',
      }),
    );
    const total = Number(account?.generatedCount ?? 0);
    const highestSeq = total - (page - 1) * perPage;
    if (highestSeq < 1) return { items: [], total };
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tables.articles,
        IndexName: ARTICLE_INDEX.generated,
        KeyConditionExpression: 'accountId = :accountId AND generatedSeq <= :highest',
        ExpressionAttributeValues: { ':accountId': accountId, ':highest': highestSeq },
        ScanIndexForward: false,
        Limit: perPage,
      }),
    );
    return { items: (Items ?? []).map(fromItem), total };
  }

  async listQueued(accountId: string, page: number, perPage: number): Promise<ArticlePage> {
    const wanted = page * perPage;
    const query = {
      TableName: this.tables.articles,
      IndexName: ARTICLE_INDEX.queue,
      KeyConditionExpression: 'accountId = :accountId',
      ExpressionAttributeValues: { ':accountId': accountId },
      ScanIndexForward: false,
    };
    const items: Item[] = [];
    let exclusiveStartKey: Item | undefined;
    do {
      const { Items, LastEvaluatedKey } = await this.client.send(
        new QueryCommand({
          ...query,
          Limit: wanted - items.length,
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      items.push(...(Items ?? []));
      exclusiveStartKey = LastEvaluatedKey;
    } while (exclusiveStartKey && items.length < wanted);
    const pageItems = items.slice((page - 1) * perPage).map(fromItem);
    // Past the wanted items the queue still has to be counted, so every page has the same meta.
    const total = exclusiveStartKey
      ? items.length + (await countQuery(this.client, { ...query, ExclusiveStartKey: exclusiveStartKey }))
      : items.length;
    return { items: pageItems, total };
  }

  async listDue(bucket: 'reservation' | 'generation', dueBy: string, limit: number): Promise<Article[]> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tables.articles,
        IndexName: ARTICLE_INDEX.sweep,
        KeyConditionExpression: 'sweepBucket = :bucket AND sweepAt <= :dueBy',
        ExpressionAttributeValues: { ':bucket': SWEEP_BUCKET[bucket], ':dueBy': dueBy },
        Limit: limit,
      }),
    );
    return (Items ?? []).map(fromItem);
  }

  /** The sweep index's `generation` bucket holds exactly the queued articles. */
  async *listQueuedGenerations(): AsyncIterable<GenerationMessage[]> {
    const pages = paginateQuery(
      { client: this.client, pageSize: 100 },
      {
        TableName: this.tables.articles,
        IndexName: ARTICLE_INDEX.sweep,
        KeyConditionExpression: 'sweepBucket = :bucket',
        FilterExpression: '#state = :queued',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':bucket': SWEEP_BUCKET.generation, ':queued': 'queued' },
        ProjectionExpression: 'accountId, articleUuid',
      },
    );
    for await (const page of pages) {
      yield (page.Items ?? []).map((item) => ({
        accountId: String(item.accountId),
        articleUuid: String(item.articleUuid),
      }));
    }
  }

  async makeDeferralsDue(accountId: string, state: DeferredState, now: string): Promise<number> {
    let updated = 0;
    let exclusiveStartKey: Item | undefined;
    do {
      const query: QueryCommandInput = {
        TableName: this.tables.articles,
        IndexName: ARTICLE_INDEX.queue,
        KeyConditionExpression: 'accountId = :accountId',
        FilterExpression: '#state = :state',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':accountId': accountId, ':state': state },
        ProjectionExpression: 'accountId, articleUuid',
        ExclusiveStartKey: exclusiveStartKey,
      };
      const { Items, LastEvaluatedKey } = await this.client.send(new QueryCommand(query));
      for (const item of Items ?? []) {
        try {
          await this.client.send(
            new UpdateCommand({
              TableName: this.tables.articles,
              Key: articleKeys.article(accountId, String(item.articleUuid)),
              UpdateExpression: 'SET sweepAt = :now',
              ConditionExpression: '#state = :state',
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: { ':now': now, ':state': state },
            }),
          );
          updated++;
        } catch (error) {
          if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
        }
      }
      exclusiveStartKey = LastEvaluatedKey;
    } while (exclusiveStartKey);
    return updated;
  }
}

/** Idempotency token of one reservation attempt (DynamoDB allows at most 36 characters). */
function requestToken(articleUuid: string, at: string, attempt: number): string {
  return createHash('sha256').update(`${articleUuid}|${at}|${attempt}`).digest('hex').slice(0, 36);
}

function queuedItem(article: Article, reservation: Reservation): Item {
  return {
    ...article,
    state: 'queued',
    creditsCharged: reservation.price,
    startGenerationAt: reservation.now,
    queueSortKey: articleKeys.queueSortKey(article.createdAt, article.articleUuid),
    sweepBucket: SWEEP_BUCKET.generation,
    sweepAt: reservation.stuckAfter,
  };
}

function deferredItem(
  article: Article,
  state: Exclude<ReservationOutcome, 'reserved'>,
  reservation: Reservation,
): Item {
  const retryAt =
    state === 'daily_limit_reached' ? reservation.retryDailyLimitAt : reservation.retryCreditsAt;
  const deferredState: ArticleState = state;
  return {
    ...article,
    state: deferredState,
    creditsCharged: 0,
    queueSortKey: articleKeys.queueSortKey(article.createdAt, article.articleUuid),
    sweepBucket: SWEEP_BUCKET.reservation,
    sweepAt: retryAt,
    ...(state === 'daily_limit_reached' ? { startGenerationAt: reservation.retryDailyLimitAt } : {}),
  };
}

function fromItem(item: Item): Article {
  const article = { ...item };
  for (const attribute of INDEX_ATTRIBUTES) delete article[attribute];
  return article as unknown as Article;
}
