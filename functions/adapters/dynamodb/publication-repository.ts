/**
 * Publication bookkeeping on article items: the `publication` bucket of the sweep index holds
 * the generated articles still to be published, due at `sweepAt`. Every change is conditional
 * on the article not being published yet, so concurrent attempts cannot undo a success.
 */
import {
  type DynamoDBDocumentClient,
  paginateQuery,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type {
  ArticleRef,
  PublicationRetry,
  PublicationStore,
  PublishedPost,
} from '../../core/publishing/ports';
import { articleKeys, SWEEP_BUCKET, sweepBucketOf, sweepBucketsOf } from './keys';
import { ARTICLE_INDEX } from './table-definitions';
import { isConditionalCheckFailure } from './transactions';

const PENDING = 'pending';
const PUBLISHED = 'published';
const FAILED = 'failed';
const MAX_ERROR_LENGTH = 500;

export class DynamoPublicationRepository implements PublicationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listDue(dueBy: string, limit: number): Promise<ArticleRef[]> {
    const pages = await Promise.all(
      sweepBucketsOf(SWEEP_BUCKET.publication).map((bucket) =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: ARTICLE_INDEX.sweep,
            KeyConditionExpression: 'sweepBucket = :bucket AND sweepAt <= :dueBy',
            ExpressionAttributeValues: { ':bucket': bucket, ':dueBy': dueBy },
            ProjectionExpression: 'accountId, articleUuid, sweepAt',
            Limit: limit,
          }),
        ),
      ),
    );
    return pages
      .flatMap(({ Items }) => Items ?? [])
      .sort((a, b) => String(a.sweepAt).localeCompare(String(b.sweepAt)))
      .slice(0, limit)
      .map((item) => ({ accountId: String(item.accountId), articleUuid: String(item.articleUuid) }));
  }

  async markPublished(ref: ArticleRef, post: PublishedPost): Promise<boolean> {
    const sets = ['publishState = :published', 'cmsId = :cmsId', 'cmsPermalink = :permalink'];
    const values: Record<string, unknown> = {
      ':published': PUBLISHED,
      ':cmsId': post.cmsId,
      ':permalink': post.cmsPermalink,
    };
    if (post.publishedAt) {
      sets.push('publishedAt = :publishedAt');
      values[':publishedAt'] = post.publishedAt;
    }
    if (post.slug) {
      sets.push('slug = :slug');
      values[':slug'] = post.slug;
    }
    if (post.site) {
      sets.push('publicationSite = :site');
      values[':site'] = post.site;
    }
    return this.conditionalUpdate(ref, {
      UpdateExpression: `SET ${sets.join(', ')} REMOVE sweepBucket, sweepAt, publishError, publishRetryAt`,
      ConditionExpression: 'attribute_exists(articleUuid) AND publishState <> :published',
      ExpressionAttributeValues: values,
    });
  }

  async scheduleRetry(ref: ArticleRef, retry: PublicationRetry): Promise<boolean> {
    return this.conditionalUpdate(ref, {
      UpdateExpression:
        'SET publishAttempts = :attempts, sweepBucket = :bucket, sweepAt = :next, publishRetryAt = :next, publishError = :error',
      ConditionExpression: 'publishState = :pending',
      ExpressionAttributeValues: {
        ':attempts': retry.attempts,
        ':bucket': sweepBucketOf(SWEEP_BUCKET.publication, ref.articleUuid),
        ':next': retry.nextAttemptAt,
        ':error': retry.lastError.slice(0, MAX_ERROR_LENGTH),
        ':pending': PENDING,
      },
    });
  }

  async markFailed(
    ref: ArticleRef,
    failure: { attempts: number; lastError: string; failedAt: string },
  ): Promise<boolean> {
    return this.conditionalUpdate(ref, {
      UpdateExpression:
        'SET publishState = :failed, publishAttempts = :attempts, publishError = :error, publishFailedAt = :at REMOVE sweepBucket, sweepAt, publishRetryAt',
      ConditionExpression: 'publishState = :pending',
      ExpressionAttributeValues: {
        ':failed': FAILED,
        ':attempts': failure.attempts,
        ':error': failure.lastError.slice(0, MAX_ERROR_LENGTH),
        ':at': failure.failedAt,
        ':pending': PENDING,
      },
    });
  }

  async requeueFailed(ref: ArticleRef, dueAt: string): Promise<boolean> {
    return this.conditionalUpdate(ref, {
      UpdateExpression:
        'SET publishState = :pending, publishAttempts = :zero, sweepBucket = :bucket, sweepAt = :due, publishRetryAt = :due REMOVE publishFailedAt',
      ConditionExpression: 'publishState = :failed',
      ExpressionAttributeValues: {
        ':pending': PENDING,
        ':zero': 0,
        ':bucket': sweepBucketOf(SWEEP_BUCKET.publication, ref.articleUuid),
        ':due': dueAt,
        ':failed': FAILED,
      },
    });
  }

  /**
   * Reads the `publication` bucket of the sweep index from `dueAt` on (pending publications are
   * few: only failed ones wait there for long), keeps this website's, and moves each to `dueAt`
   * unless it was published or moved meanwhile.
   */
  async makeDueForWebsite(accountId: string, websiteUuid: string, dueAt: string): Promise<number> {
    const refs: ArticleRef[] = [];
    for (const bucket of sweepBucketsOf(SWEEP_BUCKET.publication)) {
      const pages = paginateQuery(
        { client: this.client },
        {
          TableName: this.tableName,
          IndexName: ARTICLE_INDEX.sweep,
          KeyConditionExpression: 'sweepBucket = :bucket AND sweepAt > :dueAt',
          FilterExpression: 'accountId = :accountId AND websiteUuid = :websiteUuid',
          ExpressionAttributeValues: {
            ':bucket': bucket,
            ':dueAt': dueAt,
            ':accountId': accountId,
            ':websiteUuid': websiteUuid,
          },
          ProjectionExpression: 'accountId, articleUuid',
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          refs.push({ accountId: String(item.accountId), articleUuid: String(item.articleUuid) });
        }
      }
    }
    let moved = 0;
    for (const ref of refs) {
      const updated = await this.conditionalUpdate(ref, {
        UpdateExpression: 'SET sweepAt = :dueAt, publishRetryAt = :dueAt',
        ConditionExpression:
          'publishState = :pending AND attribute_exists(sweepBucket) AND sweepAt > :dueAt AND websiteUuid = :websiteUuid',
        ExpressionAttributeValues: {
          ':dueAt': dueAt,
          ':pending': PENDING,
          ':websiteUuid': websiteUuid,
        },
      });
      if (updated) moved++;
    }
    return moved;
  }

  private async conditionalUpdate(
    ref: ArticleRef,
    update: {
      UpdateExpression: string;
      ConditionExpression: string;
      ExpressionAttributeValues: Record<string, unknown>;
    },
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: articleKeys.article(ref.accountId, ref.articleUuid),
          ...update,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw error;
    }
  }
}
