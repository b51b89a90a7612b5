/**
 * Outline review on article items (core/articles/outline-review.ts): the worker's hold of an
 * outline for approval (with its `article.outline_ready` event), the approval that queues the
 * article again, and the expiry that cancels and refunds it. Each is conditional on the state it
 * leaves, so of an approval, a cancel (article-reservations.ts) and the expiry exactly one wins.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import type { Outline, TokenUsage } from '../../core/articles/article-model';
import { approvedArticle, outlineExpired } from '../../core/articles/outline-rules';
import type { ArticleKey, OutlineReviews } from '../../core/articles/ports';
import { articleFromItem, articleKey, generationBucket } from './article-item';
import { endWithRefund, type RefundTables } from './article-refund';
import { updateIfCondition, updateWithEvent } from './conditional-update';
import type { EventOutbox } from './event-outbox';
import { articleRecordAfter } from './event-records';
import { SWEEP_BUCKET, sweepBucketOf } from './keys';
import { queueCountUpdates } from './queue-positions';
import { dueInSweepIndex } from './sweep-index';

export const outlineBucket = (articleUuid: string) => sweepBucketOf(SWEEP_BUCKET.outline, articleUuid);

export class DynamoOutlineReviews implements OutlineReviews {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: RefundTables,
    /** With it, a held outline stores its `article.outline_ready` event (event-outbox.ts). */
    private readonly events?: EventOutbox,
  ) {}

  async holdForReview(
    ref: ArticleKey,
    owner: string,
    review: { outline: Outline; usage: TokenUsage; readyAt: string; expiresAt: string },
  ): Promise<boolean> {
    const event = await this.events?.stage(ref.accountId, 'article.outline_ready', {
      kind: 'article',
      uuid: ref.articleUuid,
    });
    const key = articleKey(ref);
    return updateWithEvent(
      this.client,
      this.tables.articles,
      key,
      {
        // Still in the queue listing (not generated); due for the sweeper when the review expires.
        UpdateExpression:
          'SET #state = :ready, outline = :outline, outlineUsage = :usage, outlineReadyAt = :readyAt, outlineExpiresAt = :expires, sweepBucket = :bucket, sweepAt = :expires REMOVE leaseOwner, leaseExpiresAt',
        ConditionExpression: '#state = :queued AND leaseOwner = :owner',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':ready': 'outline_ready',
          ':outline': review.outline,
          ':usage': review.usage,
          ':readyAt': review.readyAt,
          ':expires': review.expiresAt,
          ':bucket': outlineBucket(ref.articleUuid),
          ':queued': 'queued',
          ':owner': owner,
        },
      },
      event,
      articleRecordAfter(this.client, this.tables.articles, key),
    );
  }

  approveOutline(article: Article, outline: Outline, approvedAt: string, sendBy: string): Promise<boolean> {
    const approved = approvedArticle(article, outline);
    return updateIfCondition(this.client, this.tables.articles, articleKey(article), {
      // Queued again, as new: no attempt counted, due for the sweeper if the message is not sent.
      UpdateExpression: `SET #state = :queued, outline = :outline, outlineApproved = :true, title = :title, outlineApprovedAt = :at, generationAttempts = :zero, sweepBucket = :bucket, sweepAt = :sendBy${approved.slug !== undefined ? ', slug = :slug' : ''} REMOVE outlineExpiresAt, lastError`,
      ConditionExpression: '#state = :ready',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':queued': 'queued',
        ':outline': outline,
        ':true': true,
        ':title': approved.title,
        ':at': approvedAt,
        ':zero': 0,
        ':bucket': generationBucket(article.articleUuid),
        ':sendBy': sendBy,
        ':ready': 'outline_ready',
        ...(approved.slug !== undefined ? { ':slug': approved.slug } : {}),
      },
    });
  }

  expireOutline(ref: ArticleKey, expiredAt: string): Promise<boolean> {
    return endWithRefund(
      this.client,
      this.tables,
      ref,
      (current) =>
        !outlineExpired(current, expiredAt)
          ? undefined
          : {
              UpdateExpression:
                'SET #state = :cancelled, creditsCharged = :zero, cancelledAt = :at, cancelReason = :reason REMOVE queueSortKey, sweepBucket, sweepAt, outlineExpiresAt',
              ConditionExpression: '#state = :ready AND creditsCharged = :refund AND outlineExpiresAt <= :at',
              ExpressionAttributeValues: {
                ':cancelled': 'cancelled',
                ':zero': 0,
                ':at': expiredAt,
                ':reason': 'outline_expired',
                ':ready': 'outline_ready',
              },
            },
      // Approved or cancelled meanwhile: read again, and there is nothing to expire.
      'retry',
      (current) =>
        current.queueSeq === undefined
          ? []
          : queueCountUpdates(this.tables.articles, current.accountId, current.queueSeq, -1),
    );
  }

  async listExpiredOutlines(dueBy: string, limit: number): Promise<Article[]> {
    const due = await dueInSweepIndex(this.client, this.tables.articles, SWEEP_BUCKET.outline, dueBy, limit);
    return due.map(articleFromItem);
  }
}
