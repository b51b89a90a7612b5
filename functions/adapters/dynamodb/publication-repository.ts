/**
 * Publication bookkeeping on article items: the `publication` bucket of the sweep index holds
 * the generated articles still to be published, due at `sweepAt`. Every change is conditional
 * on the article not being published yet, so concurrent attempts cannot undo a success.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  ArticleRef,
  PublicationRetry,
  PublicationStore,
  PublishedPost,
} from '../../core/publishing/ports';
import { articleKeys, SWEEP_BUCKET } from './keys';
import { ARTICLE_INDEX } from './table-definitions';

const PENDING = 'pending';
const PUBLISHED = 'published';
const MAX_ERROR_LENGTH = 500;

export class DynamoPublicationRepository implements PublicationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listDue(dueBy: string, limit: number): Promise<ArticleRef[]> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: ARTICLE_INDEX.sweep,
        KeyConditionExpression: 'sweepBucket = :bucket AND sweepAt <= :dueBy',
        ExpressionAttributeValues: { ':bucket': SWEEP_BUCKET.publication, ':dueBy': dueBy },
        ProjectionExpression: 'accountId, articleUuid',
        Limit: limit,
      }),
    );
    return (Items ?? []).map((item) => ({
      accountId: String(item.accountId),
      articleUuid: String(item.articleUuid),
    }));
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
      UpdateExpression: `SET ${sets.join(', ')} REMOVE sweepBucket, sweepAt, publishError`,
      ConditionExpression: 'attribute_exists(articleUuid) AND publishState <> :published',
      ExpressionAttributeValues: values,
    });
  }

  async scheduleRetry(ref: ArticleRef, retry: PublicationRetry): Promise<boolean> {
    return this.conditionalUpdate(ref, {
      UpdateExpression:
        'SET publishAttempts = :attempts, sweepBucket = :bucket, sweepAt = :next, publishError = :error',
      ConditionExpression: 'publishState = :pending',
      ExpressionAttributeValues: {
        ':attempts': retry.attempts,
        ':bucket': SWEEP_BUCKET.publication,
        ':next': retry.nextAttemptAt,
        ':error': retry.lastError.slice(0, MAX_ERROR_LENGTH),
        ':pending': PENDING,
      },
    });
  }

  async abandon(ref: ArticleRef, reason: string): Promise<void> {
    await this.conditionalUpdate(ref, {
      UpdateExpression: 'SET publishError = :error REMOVE sweepBucket, sweepAt',
      ConditionExpression: 'publishState = :pending',
      ExpressionAttributeValues: { ':error': reason.slice(0, MAX_ERROR_LENGTH), ':pending': PENDING },
    });
  }

  /**
   * Reads the `publication` bucket of the sweep index from `dueAt` on (pending publications are
   * few: only failed ones wait there for long), keeps this website's, and moves each to `dueAt`
   * unless it was published or moved meanwhile.
   */
  async makeDueForWebsite(accountId: string, websiteUuid: string, dueAt: string): Promise<number> {
    const refs: ArticleRef[] = [];
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const { Items, LastEvaluatedKey } = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: ARTICLE_INDEX.sweep,
          KeyConditionExpression: 'sweepBucket = :bucket AND sweepAt > :dueAt',
          FilterExpression: 'accountId = :accountId AND websiteUuid = :websiteUuid',
          ExpressionAttributeValues: {
            ':bucket': SWEEP_BUCKET.publication,
            ':dueAt': dueAt,
            ':accountId': accountId,
            ':websiteUuid': websiteUuid,
          },
          ProjectionExpression: 'accountId, articleUuid',
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      for (const item of Items ?? []) {
        refs.push({ accountId: String(item.accountId), articleUuid: String(item.articleUuid) });
      }
      exclusiveStartKey = LastEvaluatedKey;
    } while (exclusiveStartKey);
    let moved = 0;
    for (const ref of refs) {
      const updated = await this.conditionalUpdate(ref, {
        UpdateExpression: 'SET sweepAt = :dueAt',
        ConditionExpression:
          'publishState = :pending AND sweepBucket = :bucket AND sweepAt > :dueAt AND websiteUuid = :websiteUuid',
        ExpressionAttributeValues: {
          ':dueAt': dueAt,
          ':pending': PENDING,
          ':bucket': SWEEP_BUCKET.publication,
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
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
