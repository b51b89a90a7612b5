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
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Article, ArticleState } from '../../core/articles/article';
import { PUBLISH_GRACE_MS } from '../../core/articles/lifecycle-policy';
import type {
  ArticlePage,
  ArticleStore,
  DeferredState,
  GenerationResult,
  LeaseOutcome,
  ReservableState,
  Reservation,
  ReservationOutcome,
} from '../../core/articles/ports';
import type { QueuedGeneration, QueuedGenerations } from '../../core/articles/resend-unfinished';
import { slugify } from '../../core/slug';
import { articleKeys, SWEEP_BUCKET, sweepBucketOf, sweepBucketsOf, websiteKeys } from './keys';
import { countQuery } from './reads';
import { ARTICLE_INDEX } from './table-definitions';
import { isConditionalCheckFailure, isConditionFailure, transactWithRetry } from './transactions';
import { usageKeys } from './usage-repository';

export interface ArticleTables {
  articles: string;
  accounts: string;
  dailyUsage: string;
  websites: string;
  /** Generated articles and credits per UTC day (`GET /v1/account/usage`), counted at completion. */
  usageDays: string;
}

/** Attributes that only serve the indexes; stripped when reading. */
const INDEX_ATTRIBUTES = ['queueSortKey', 'sweepBucket', 'sweepAt'] as const;
/** Daily usage items expire a few days after their day. */
const DAILY_USAGE_TTL_SECONDS = 3 * 24 * 3600;
const DEFERRED_STATES: ReservableState[] = ['not_enough_credits', 'daily_limit_reached'];
const MAX_ERROR_LENGTH = 500;

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
      if (!isConditionalCheckFailure(error)) throw error;
      return this.outcomeOfStored(article);
    }
    return outcome;
  }

  async retryReservation(
    article: Article,
    reservation: Reservation,
    from: ReservableState[] = DEFERRED_STATES,
  ): Promise<ReservationOutcome | undefined> {
    const fromValues = Object.fromEntries(from.map((state, index) => [`:from${index}`, state]));
    const fromCondition = `#state IN (${Object.keys(fromValues).join(', ')})`;
    const outcome = await this.reserve(article, reservation, (queued) => ({
      Update: {
        TableName: this.tables.articles,
        Key: articleKeys.article(article.accountId, article.articleUuid),
        UpdateExpression:
          'SET #state = :queued, creditsCharged = :price, startGenerationAt = :now, sweepBucket = :bucket, sweepAt = :sweepAt, generationAttempts = :zero REMOVE leaseOwner, leaseExpiresAt, resends',
        ConditionExpression: fromCondition,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':queued': 'queued',
          ':price': queued.creditsCharged,
          ':now': queued.startGenerationAt,
          ':bucket': queued.sweepBucket,
          ':sweepAt': queued.sweepAt,
          ':zero': 0,
          ...fromValues,
        },
      },
    }));
    if (outcome === undefined || outcome === 'reserved') return outcome;
    const deferred = deferredItem(article, outcome, reservation);
    const updated = await this.updateIfCondition(article, {
      UpdateExpression: `SET #state = :state, sweepBucket = :bucket, sweepAt = :sweepAt${deferred.startGenerationAt ? ', startGenerationAt = :start' : ''}`,
      ConditionExpression: fromCondition,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':state': outcome,
        ':bucket': deferred.sweepBucket,
        ':sweepAt': deferred.sweepAt,
        ...fromValues,
        ...(deferred.startGenerationAt ? { ':start': deferred.startGenerationAt } : {}),
      },
    });
    return updated ? outcome : undefined;
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
        if (result.seo) {
          update += ', seo = :seo';
          values[':seo'] = result.seo;
        }
        if (onWebsite) {
          update +=
            ', slug = :slug, publishState = :pending, publishAttempts = :zero, sweepBucket = :publication, sweepAt = :publishCheck, publishRetryAt = :publishCheck REMOVE queueSortKey, leaseOwner, leaseExpiresAt';
          Object.assign(values, {
            ':slug': slug,
            ':pending': 'pending',
            ':zero': 0,
            ':publication': sweepBucketOf(SWEEP_BUCKET.publication, article.articleUuid),
            ':publishCheck': new Date(Date.parse(result.generatedAt) + PUBLISH_GRACE_MS).toISOString(),
          });
        } else {
          update += ' REMOVE queueSortKey, sweepBucket, sweepAt, leaseOwner, leaseExpiresAt';
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
        transactItems.push(usageDayUpdate(this.tables.usageDays, article, result.generatedAt));
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
    return this.endWithRefund(
      article,
      (current) =>
        current.state !== 'queued'
          ? undefined
          : {
              UpdateExpression:
                'SET #state = :error, creditsCharged = :zero, lastError = :reason, failedAt = :failedAt REMOVE sweepBucket, sweepAt, leaseOwner, leaseExpiresAt',
              ConditionExpression: '#state = :queued AND creditsCharged = :refund',
              ExpressionAttributeValues: {
                ':error': 'error',
                ':zero': 0,
                ':reason': reason.slice(0, MAX_ERROR_LENGTH),
                ':failedAt': failedAt,
                ':queued': 'queued',
              },
            },
      // Not queued any more (failed or completed by another delivery): nothing to refund.
      { result: false },
    );
  }

  async cancel(article: Article, cancelledAt: string): Promise<boolean> {
    return this.endWithRefund(
      article,
      (current) =>
        !notStarted(current)
          ? undefined
          : {
              UpdateExpression:
                'SET #state = :cancelled, creditsCharged = :zero, cancelledAt = :at REMOVE queueSortKey, sweepBucket, sweepAt',
              // Still in the state read, with no attempt started and the same credits held.
              ConditionExpression:
                '#state = :current AND creditsCharged = :refund AND attribute_not_exists(leaseOwner) AND (attribute_not_exists(generationAttempts) OR generationAttempts = :zero)',
              ExpressionAttributeValues: {
                ':cancelled': 'cancelled',
                ':zero': 0,
                ':at': cancelledAt,
                ':current': current.state,
              },
            },
      // Moved on meanwhile (a worker took it, or another cancel won): read again and decide.
      'retry',
    );
  }

  /**
   * Moves the article to a final state and gives back the credits it holds, in one
   * transaction. `change` sees the current article and answers the update (its condition must
   * check `creditsCharged = :refund`), or nothing when the article may not move; a failed
   * condition ends with `onConflict`.
   */
  private async endWithRefund(
    article: Article,
    change: (
      current: Article,
    ) =>
      | Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeValues'>
      | undefined,
    onConflict: { result: boolean } | 'retry',
  ): Promise<boolean> {
    return transactWithRetry<boolean>(
      this.client,
      async () => {
        const current = await this.get(article.accountId, article.articleUuid);
        const update = current ? change(current) : undefined;
        if (!current || !update) return { result: false };
        const refund = current.creditsCharged;
        const transactItems: TransactItem[] = [
          {
            Update: {
              TableName: this.tables.articles,
              Key: articleKeys.article(article.accountId, article.articleUuid),
              UpdateExpression: update.UpdateExpression,
              ConditionExpression: update.ConditionExpression,
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':refund': refund },
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
      (codes) => (isConditionFailure(codes[0]) ? onConflict : undefined),
    );
  }

  async markSent(article: Article, recheckAt: string): Promise<void> {
    // A worker that already took the lease owns the sweep time now.
    await this.updateIfCondition(article, {
      UpdateExpression: 'SET sweepAt = :at',
      ConditionExpression: '#state = :queued AND attribute_not_exists(leaseOwner)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':at': recheckAt, ':queued': 'queued' },
    });
  }

  async takeLease(
    ref: Pick<Article, 'accountId' | 'articleUuid'>,
    owner: string,
    now: string,
    leaseUntil: string,
    maxAttempts: number,
  ): Promise<LeaseOutcome> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tables.articles,
          Key: articleKeys.article(ref.accountId, ref.articleUuid),
          UpdateExpression:
            'SET leaseOwner = :owner, leaseExpiresAt = :until, generationAttempts = if_not_exists(generationAttempts, :zero) + :one, sweepBucket = :bucket, sweepAt = :until',
          ConditionExpression:
            '#state = :queued AND (attribute_not_exists(leaseExpiresAt) OR leaseExpiresAt < :now) AND (attribute_not_exists(generationAttempts) OR generationAttempts < :max)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':owner': owner,
            ':until': leaseUntil,
            ':zero': 0,
            ':one': 1,
            ':bucket': sweepBucketOf(SWEEP_BUCKET.generation, ref.articleUuid),
            ':queued': 'queued',
            ':now': now,
            ':max': maxAttempts,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { kind: 'leased', article: fromItem(Attributes ?? {}) };
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
    const current = await this.get(ref.accountId, ref.articleUuid);
    if (current?.state !== 'queued')
      return current ? { kind: 'not_queued', article: current } : { kind: 'not_queued' };
    if (current.leaseExpiresAt !== undefined && current.leaseExpiresAt >= now) {
      return { kind: 'busy', leaseExpiresAt: current.leaseExpiresAt };
    }
    return { kind: 'exhausted', article: current };
  }

  async renewLease(article: Article, owner: string, leaseUntil: string): Promise<boolean> {
    return this.updateIfCondition(article, {
      UpdateExpression: 'SET leaseExpiresAt = :until, sweepAt = :until',
      ConditionExpression: '#state = :queued AND leaseOwner = :owner',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':until': leaseUntil, ':queued': 'queued', ':owner': owner },
    });
  }

  async breakLease(article: QueuedGeneration): Promise<void> {
    if (!article.leaseOwner) return;
    await this.updateIfCondition(article, {
      UpdateExpression: 'REMOVE leaseOwner, leaseExpiresAt',
      ConditionExpression: '#state = :queued AND leaseOwner = :owner',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':queued': 'queued', ':owner': article.leaseOwner },
    });
  }

  async releaseLease(article: Article, owner: string, reason: string, recheckAt: string): Promise<void> {
    await this.updateIfCondition(article, {
      UpdateExpression: 'SET lastError = :reason, sweepAt = :at REMOVE leaseOwner, leaseExpiresAt',
      ConditionExpression: '#state = :queued AND leaseOwner = :owner',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':reason': reason.slice(0, MAX_ERROR_LENGTH),
        ':at': recheckAt,
        ':queued': 'queued',
        ':owner': owner,
      },
    });
  }

  async postponeCheck(article: Article, nextCheckAt: string): Promise<void> {
    await this.updateIfCondition(article, {
      UpdateExpression: 'SET sweepBucket = :bucket, sweepAt = :at',
      ConditionExpression: '#state = :queued',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':bucket': sweepBucketOf(SWEEP_BUCKET.generation, article.articleUuid),
        ':at': nextCheckAt,
        ':queued': 'queued',
      },
    });
  }

  async markResent(article: Article, nextCheckAt: string): Promise<void> {
    await this.updateIfCondition(article, {
      UpdateExpression: 'SET sweepAt = :at, resends = if_not_exists(resends, :zero) + :one',
      ConditionExpression: '#state = :queued',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':at': nextCheckAt, ':queued': 'queued', ':zero': 0, ':one': 1 },
    });
  }

  /** One conditional update of the article; false when its condition did not hold. */
  private async updateIfCondition(
    article: Pick<Article, 'accountId' | 'articleUuid'>,
    update: Pick<
      UpdateCommandInput,
      'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
    >,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tables.articles,
          Key: articleKeys.article(article.accountId, article.articleUuid),
          ...update,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
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

  async listDue(kind: 'reservation' | 'generation', dueBy: string, limit: number): Promise<Article[]> {
    const pages = await Promise.all(
      sweepBucketsOf(SWEEP_BUCKET[kind]).map((bucket) =>
        this.client.send(
          new QueryCommand({
            TableName: this.tables.articles,
            IndexName: ARTICLE_INDEX.sweep,
            KeyConditionExpression: 'sweepBucket = :bucket AND sweepAt <= :dueBy',
            ExpressionAttributeValues: { ':bucket': bucket, ':dueBy': dueBy },
            Limit: limit,
          }),
        ),
      ),
    );
    return pages
      .flatMap(({ Items }) => Items ?? [])
      .sort((a, b) => String(a.sweepAt).localeCompare(String(b.sweepAt)))
      .slice(0, limit)
      .map(fromItem);
  }

  /** The sweep index's `generation` partitions hold exactly the queued articles. */
  async *listQueuedGenerations(): AsyncIterable<QueuedGeneration[]> {
    for (const bucket of sweepBucketsOf(SWEEP_BUCKET.generation)) {
      const pages = paginateQuery(
        { client: this.client, pageSize: 100 },
        {
          TableName: this.tables.articles,
          IndexName: ARTICLE_INDEX.sweep,
          KeyConditionExpression: 'sweepBucket = :bucket',
          FilterExpression: '#state = :queued',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':bucket': bucket, ':queued': 'queued' },
          ProjectionExpression: 'accountId, articleUuid, leaseOwner',
        },
      );
      for await (const page of pages) {
        const queued = (page.Items ?? []).map((item) => ({
          accountId: String(item.accountId),
          articleUuid: String(item.articleUuid),
          ...(item.leaseOwner ? { leaseOwner: String(item.leaseOwner) } : {}),
        }));
        if (queued.length > 0) yield queued;
      }
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
          if (!isConditionalCheckFailure(error)) throw error;
        }
      }
      exclusiveStartKey = LastEvaluatedKey;
    } while (exclusiveStartKey);
    return updated;
  }
}

/**
 * Adds one generated article and its credits to the day it was generated on (UTC), in total and
 * for its website (`usageKeys`), in the transaction that completes it: counted exactly once.
 */
function usageDayUpdate(tableName: string, article: Article, generatedAt: string): TransactItem {
  const names: Record<string, string> = {};
  let update = 'ADD articlesGenerated :one, creditsUsed :credits';
  if (article.websiteUuid) {
    const keys = usageKeys.website(article.websiteUuid);
    Object.assign(names, { '#websiteArticles': keys.articles, '#websiteCredits': keys.credits });
    update += ', #websiteArticles :one, #websiteCredits :credits';
  }
  return {
    Update: {
      TableName: tableName,
      Key: { accountId: article.accountId, day: generatedAt.slice(0, 10) },
      UpdateExpression: update,
      ...(article.websiteUuid ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: { ':one': 1, ':credits': article.creditsCharged },
    },
  };
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
    sweepBucket: sweepBucketOf(SWEEP_BUCKET.generation, article.articleUuid),
    sweepAt: reservation.sendBy,
    generationAttempts: 0,
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
    sweepBucket: sweepBucketOf(SWEEP_BUCKET.reservation, article.articleUuid),
    sweepAt: retryAt,
    ...(state === 'daily_limit_reached' ? { startGenerationAt: reservation.retryDailyLimitAt } : {}),
  };
}

/** Generation has not started: deferred, or queued with no attempt taken. */
function notStarted(article: Article): boolean {
  if (article.state === 'not_enough_credits' || article.state === 'daily_limit_reached') return true;
  return article.state === 'queued' && !article.leaseOwner && (article.generationAttempts ?? 0) === 0;
}

function fromItem(item: Item): Article {
  const article = { ...item };
  for (const attribute of INDEX_ATTRIBUTES) delete article[attribute];
  return article as unknown as Article;
}
