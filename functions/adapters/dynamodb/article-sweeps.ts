/**
 * The sweeper's view of article items: the `reservation` and `generation` buckets of the sweep
 * index (due at `sweepAt`), and the bookkeeping of generation messages.
 */
import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import type {
  ArticleKey,
  ArticleSweeps,
  DeferredState,
  GenerationDispatch,
  QueuedGeneration,
  QueuedGenerations,
} from '../../core/articles/ports';
import { groupedCalls } from '../../shared/grouped-calls';
import { articleFromItem, articleKey, generationBucket, refFromItem } from './article-item';
import { type ConditionalUpdate, updateIfCondition } from './conditional-update';
import { SWEEP_BUCKET, sweepBucketsOf } from './keys';
import { dueInSweepIndex } from './sweep-index';
import { ARTICLE_INDEX } from './table-definitions';
import { conditionFailed, transactWithRetry } from './transactions';

interface SentMark {
  article: ArticleKey;
  recheckAt: string;
}

/** Articles marked sent per transaction, and transactions in flight, in `markSentMany`. */
const MARKED_PER_CALL = 25;
const MARK_CALLS_IN_FLIGHT = 8;
/** Grouped `markSent` calls in flight at once: the others wait and go 25 to a transaction. */
const GROUPED_MARKS_IN_FLIGHT = 2;

export interface SweepTables {
  articles: string;
}

export class DynamoArticleSweeps implements ArticleSweeps, GenerationDispatch, QueuedGenerations {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: SweepTables,
  ) {}

  async listDue(kind: 'reservation' | 'generation', dueBy: string, limit: number): Promise<Article[]> {
    const due = await dueInSweepIndex(this.client, this.tables.articles, SWEEP_BUCKET[kind], dueBy, limit);
    return due.map(articleFromItem);
  }

  /**
   * Marks that arrive while GROUPED_MARKS_IN_FLIGHT are out (many creates at once in one process:
   * the local runtime) go together, as `markSentMany` sends them; a lone one is one UpdateItem.
   */
  async markSent(article: ArticleKey, recheckAt: string): Promise<void> {
    await this.groupedMarks({ article, recheckAt });
  }

  /**
   * The same updates, 25 to a transaction (the items need not change together: a transaction is
   * only the one call that applies many conditional updates). An article whose condition fails
   * (a worker took it meanwhile) is dropped and the others tried again, so leases taken while a
   * batch's messages go out cost a retry, not a call per article.
   */
  async markSentMany(articles: ArticleKey[], recheckAt: string): Promise<void> {
    const chunks: SentMark[][] = [];
    for (let start = 0; start < articles.length; start += MARKED_PER_CALL) {
      chunks.push(articles.slice(start, start + MARKED_PER_CALL).map((article) => ({ article, recheckAt })));
    }
    // MARK_CALLS_IN_FLIGHT callers, each taking the next chunk (no p-limit in CreateArticle's bundle).
    await Promise.all(
      Array.from({ length: Math.min(MARK_CALLS_IN_FLIGHT, chunks.length) }, async () => {
        for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) await this.markTogether(chunk);
      }),
    );
  }

  private readonly groupedMarks = groupedCalls<SentMark, void>(
    async (marks) => {
      const [only] = marks;
      if (marks.length === 1 && only) await this.update(only.article, markSentUpdate(only.recheckAt));
      else await this.markTogether(marks);
      return marks.map(() => ({ value: undefined }));
    },
    { maxGroup: MARKED_PER_CALL, inFlight: GROUPED_MARKS_IN_FLIGHT },
  );

  private async markTogether(marks: SentMark[]): Promise<void> {
    let pending = marks;
    await transactWithRetry<void>(
      this.client,
      async () =>
        pending.length === 0
          ? { result: undefined }
          : {
              TransactItems: pending.map(({ article, recheckAt }) => ({
                Update: {
                  TableName: this.tables.articles,
                  Key: articleKey(article),
                  ...markSentUpdate(recheckAt),
                },
              })),
            },
      undefined,
      (codes) => {
        const failed = pending.filter((_, index) => conditionFailed(codes, index));
        if (failed.length === 0) return undefined;
        pending = pending.filter((mark) => !failed.includes(mark));
        return 'retry';
      },
    );
  }

  async postponeCheck(article: ArticleKey, nextCheckAt: string): Promise<void> {
    await this.update(article, {
      UpdateExpression: 'SET sweepBucket = :bucket, sweepAt = :at',
      ConditionExpression: '#state = :queued',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':bucket': generationBucket(article.articleUuid),
        ':at': nextCheckAt,
        ':queued': 'queued',
      },
    });
  }

  async markResent(article: ArticleKey, nextCheckAt: string): Promise<void> {
    await this.update(article, {
      UpdateExpression: 'SET sweepAt = :at, resends = if_not_exists(resends, :zero) + :one',
      ConditionExpression: '#state = :queued',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':at': nextCheckAt, ':queued': 'queued', ':zero': 0, ':one': 1 },
    });
  }

  async makeDeferralsDue(accountId: string, state: DeferredState, now: string): Promise<number> {
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tables.articles,
        IndexName: ARTICLE_INDEX.queue,
        KeyConditionExpression: 'accountId = :accountId',
        FilterExpression: '#state = :state',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':accountId': accountId, ':state': state },
        ProjectionExpression: 'accountId, articleUuid',
      },
    );
    let updated = 0;
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const moved = await this.update(refFromItem(item), {
          UpdateExpression: 'SET sweepAt = :now',
          ConditionExpression: '#state = :state',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':now': now, ':state': state },
        });
        if (moved) updated++;
      }
    }
    return updated;
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
          ...refFromItem(item),
          ...(item.leaseOwner ? { leaseOwner: String(item.leaseOwner) } : {}),
        }));
        if (queued.length > 0) yield queued;
      }
    }
  }

  async breakLease(article: QueuedGeneration): Promise<void> {
    if (!article.leaseOwner) return;
    await this.update(article, {
      UpdateExpression: 'REMOVE leaseOwner, leaseExpiresAt',
      ConditionExpression: '#state = :queued AND leaseOwner = :owner',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':queued': 'queued', ':owner': article.leaseOwner },
    });
  }

  private update(article: ArticleKey, update: ConditionalUpdate): Promise<boolean> {
    return updateIfCondition(this.client, this.tables.articles, articleKey(article), update);
  }
}

/** A worker that already took the lease owns the sweep time now. */
function markSentUpdate(recheckAt: string): ConditionalUpdate {
  return {
    UpdateExpression: 'SET sweepAt = :at',
    ConditionExpression: '#state = :queued AND attribute_not_exists(leaseOwner)',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':at': recheckAt, ':queued': 'queued' },
  };
}
