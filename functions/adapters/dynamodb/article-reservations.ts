/**
 * Create and reserve: the article write, credits >= price then subtract, and today's count below
 * the limit then add one, in ONE transaction; a cancel gives the credits back in another.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import {
  canCancel,
  DEFERRED_STATES,
  deferral,
  deferredArticle,
  isDeferred,
  outcomeOfStored,
  reservedArticle,
} from '../../core/articles/article-rules';
import type {
  ArticleReservations,
  DeferredState,
  ReservableState,
  Reservation,
  ReservationOutcome,
} from '../../core/articles/ports';
import { articleKey, articleToItem, type Item } from './article-item';
import { endWithRefund, readArticle } from './article-refund';
import { updateIfCondition } from './conditional-update';
import { SWEEP_BUCKET, sweepBucketOf } from './keys';
import { queueCountUpdates, takeQueueSeq } from './queue-positions';
import { reservationGroups } from './reservation-groups';
import { conditionFailed, transactionToken, transactWithRetry } from './transactions';

export interface ReservationTables {
  articles: string;
  accounts: string;
  dailyUsage: string;
}

/** Daily usage items expire a few days after their day. */
const DAILY_USAGE_TTL_SECONDS = 3 * 24 * 3600;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export class DynamoArticleReservations implements ArticleReservations {
  private readonly grouped: (article: Article, reservation: Reservation) => Promise<ReservationOutcome>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: ReservationTables,
  ) {
    this.grouped = reservationGroups(client, tables, (article, reservation) =>
      this.createAlone(article, reservation),
    );
  }

  /**
   * Creates of one account that arrive while one of them is being reserved are reserved together,
   * whole or each alone (reservation-groups.ts).
   */
  createWithReservation(article: Article, reservation: Reservation): Promise<ReservationOutcome> {
    return this.grouped(article, reservation);
  }

  /** The new article joins the queue with the account's next queue number, counted with it. */
  private async createAlone(article: Article, reservation: Reservation): Promise<ReservationOutcome> {
    const queueSeq = await takeQueueSeq(this.client, this.tables.articles, article.accountId);
    const numbered: Article = { ...article, queueSeq };
    const joinsQueue = queueCountUpdates(this.tables.articles, article.accountId, queueSeq, 1);
    const put = (item: Item): TransactItem => ({
      Put: {
        TableName: this.tables.articles,
        Item: item,
        ConditionExpression: 'attribute_not_exists(articleUuid)',
      },
    });
    const outcome = await this.reserve(numbered, reservation, put, joinsQueue);
    if (outcome === 'reserved') return outcome;
    if (outcome === undefined) return this.outcomeOfStored(article);
    const stored = await transactWithRetry<boolean>(
      this.client,
      async () => ({ TransactItems: [put(deferredItem(numbered, outcome, reservation)), ...joinsQueue] }),
      true,
      // A retried create whose first try was stored: the article is there already.
      (codes) => (conditionFailed(codes, 0) ? { result: false } : undefined),
    );
    return stored ? outcome : this.outcomeOfStored(article);
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
        Key: articleKey(article),
        UpdateExpression:
          'SET #state = :queued, creditsCharged = :price, startGenerationAt = :now, sweepBucket = :bucket, sweepAt = :sweepAt, generationAttempts = :zero REMOVE leaseOwner, leaseExpiresAt, resends, failedSources',
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
    const { retryAt, startGenerationAt } = deferral(outcome, reservation);
    const updated = await updateIfCondition(this.client, this.tables.articles, articleKey(article), {
      // A retried generation waits with its attempts reset, as when it is reserved at once.
      UpdateExpression: `SET #state = :state, sweepBucket = :bucket, sweepAt = :sweepAt, generationAttempts = :zero${startGenerationAt ? ', startGenerationAt = :start' : ''} REMOVE leaseOwner, leaseExpiresAt, resends, failedSources`,
      ConditionExpression: fromCondition,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':state': outcome,
        ':zero': 0,
        ':bucket': sweepBucketOf(SWEEP_BUCKET.reservation, article.articleUuid),
        ':sweepAt': retryAt,
        ...fromValues,
        ...(startGenerationAt ? { ':start': startGenerationAt } : {}),
      },
    });
    return updated ? outcome : undefined;
  }

  async cancel(article: Article, cancelledAt: string): Promise<boolean> {
    return endWithRefund(
      this.client,
      this.tables,
      article,
      (current) =>
        !canCancel(current)
          ? undefined
          : {
              UpdateExpression:
                'SET #state = :cancelled, creditsCharged = :zero, cancelledAt = :at REMOVE queueSortKey, sweepBucket, sweepAt, outlineExpiresAt',
              // Still in the state read with the same credits held; when queued, with no attempt
              // started (canCancel: a deferred article has not started, whatever it went through).
              ConditionExpression:
                isDeferred(current) || current.state === 'outline_ready'
                  ? '#state = :current AND creditsCharged = :refund'
                  : '#state = :current AND creditsCharged = :refund AND attribute_not_exists(leaseOwner) AND (attribute_not_exists(generationAttempts) OR generationAttempts = :zero)',
              ExpressionAttributeValues: {
                ':cancelled': 'cancelled',
                ':zero': 0,
                ':at': cancelledAt,
                ':current': current.state,
              },
            },
      // Moved on meanwhile (a worker took it, or another cancel won): read again and decide.
      'retry',
      (current) => this.leavesQueue(current),
    );
  }

  private leavesQueue(article: Article): TransactItem[] {
    return article.queueSeq === undefined
      ? []
      : queueCountUpdates(this.tables.articles, article.accountId, article.queueSeq, -1);
  }

  /** What became of an article stored by an earlier try of the same create. */
  private async outcomeOfStored(article: Article): Promise<ReservationOutcome> {
    return outcomeOfStored(await readArticle(this.client, this.tables.articles, article), article);
  }

  /**
   * One transaction: the article write, credits >= price then subtract, today's count below the
   * limit then add one (and the unconditional writes `alongside`). Returns why it could not reserve, or undefined when the article write's
   * own condition failed (someone else already moved it on).
   */
  private async reserve(
    article: Article,
    reservation: Reservation,
    articleWrite: (queued: Item) => TransactItem,
    alongside: TransactItem[] = [],
  ): Promise<ReservationOutcome | undefined> {
    const queued = articleToItem(reservedArticle(article, reservation), {
      queued: true,
      sweep: { kind: SWEEP_BUCKET.generation, at: reservation.sendBy },
    });
    // One per call: two requests reserving the same article at the same instant (two retries)
    // must not look like one request sent twice, which DynamoDB would answer "done" for both.
    const call = randomUUID();
    return transactWithRetry<ReservationOutcome | undefined>(
      this.client,
      async (attempt) => ({
        // The SDK's own retries (e.g. after a lost response) resend this token, so a
        // transaction that did commit is not applied, and charged, a second time.
        ClientRequestToken: transactionToken(call, attempt),
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
          ...alongside,
        ],
      }),
      'reserved',
      (codes) => {
        if (conditionFailed(codes, 0)) return { result: undefined };
        if (conditionFailed(codes, 1)) return { result: 'not_enough_credits' };
        if (conditionFailed(codes, 2)) return { result: 'daily_limit_reached' };
        return undefined;
      },
    );
  }
}

function deferredItem(article: Article, state: DeferredState, reservation: Reservation): Item {
  return articleToItem(deferredArticle(article, state, reservation), {
    queued: true,
    sweep: { kind: SWEEP_BUCKET.reservation, at: deferral(state, reservation).retryAt },
  });
}
