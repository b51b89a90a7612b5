/**
 * Publication bookkeeping on article items: the `publication` bucket of the sweep index holds
 * the generated articles still to be published, due at `sweepAt`. Every change is conditional
 * on the article not being published yet, so concurrent attempts cannot undo a success. With an
 * outbox, a publication's final state stores its webhook event in the same transaction.
 */
import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { errorText } from '../../core/articles/article-rules';
import type {
  ArticleRef,
  PublicationFailure,
  PublicationRetry,
  PublicationStore,
  PublishedPost,
  ScheduleCheck,
} from '../../core/publishing/ports';
import type { WebhookEventType } from '../../core/webhooks/webhook';
import { articleKey, confirmationBucket, publicationBucket, refFromItem } from './article-item';
import { type ConditionalUpdate, updateWithEvent } from './conditional-update';
import type { EventOutbox } from './event-outbox';
import { articleRecordAfter } from './event-records';
import { SWEEP_BUCKET, type SweepBucket, sweepBucketsOf } from './keys';
import { dueInSweepIndex } from './sweep-index';
import { ARTICLE_INDEX } from './table-definitions';

const PENDING = 'pending';
const PUBLISHED = 'published';
const FAILED = 'failed';

export class DynamoPublicationRepository implements PublicationStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly events?: EventOutbox,
  ) {}

  listDue(dueBy: string, limit: number): Promise<ArticleRef[]> {
    return this.dueIn(SWEEP_BUCKET.publication, dueBy, limit);
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
    const removes = ['publishError', 'publishRetryAt', 'publishUncertainLogin'];
    if (post.confirmAt) {
      // Out of the publication sweep, into the confirmation sweep: read back after its time.
      sets.push('sweepBucket = :confirmation', 'sweepAt = :confirmAt');
      values[':confirmation'] = confirmationBucket(ref.articleUuid);
      values[':confirmAt'] = post.confirmAt;
    } else {
      removes.push('sweepBucket', 'sweepAt');
    }
    return this.conditionalUpdate(
      ref,
      {
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
        ConditionExpression: 'attribute_exists(articleUuid) AND publishState <> :published',
        ExpressionAttributeValues: values,
      },
      'article.published',
    );
  }

  listDueConfirmations(dueBy: string, limit: number): Promise<ArticleRef[]> {
    return this.dueIn(SWEEP_BUCKET.confirmation, dueBy, limit);
  }

  async recordScheduleCheck(ref: ArticleRef, check: ScheduleCheck): Promise<boolean> {
    const sets = ['scheduleChecks = :checks'];
    const removes: string[] = [];
    const values: Record<string, unknown> = {
      ':checks': check.checks,
      ':published': PUBLISHED,
      ':confirmation': confirmationBucket(ref.articleUuid),
    };
    const read = check.post ?? {};
    const fields = [
      ['cmsPermalink', read.cmsPermalink],
      ['slug', read.slug],
      ['publicationSite', read.site],
      ['publishedAt', read.publishedAt],
    ] as const;
    for (const [name, value] of fields) {
      if (value === undefined) continue;
      sets.push(`${name} = :${name}`);
      values[`:${name}`] = value;
    }
    if (check.stillScheduled) {
      sets.push('scheduleStillFuture = :stillFuture');
      values[':stillFuture'] = true;
    } else {
      removes.push('scheduleStillFuture');
    }
    if (check.nextCheckAt) {
      sets.push('sweepAt = :next');
      values[':next'] = check.nextCheckAt;
    } else {
      removes.push('sweepBucket', 'sweepAt');
    }
    return this.conditionalUpdate(ref, {
      UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: 'publishState = :published AND sweepBucket = :confirmation',
      ExpressionAttributeValues: values,
    });
  }

  async markAttempting(ref: ArticleRef, login: string): Promise<void> {
    // Not pending any more, or an earlier attempt's login is there: nothing to do.
    await this.conditionalUpdate(ref, {
      UpdateExpression: 'SET publishUncertainLogin = :login',
      ConditionExpression: 'publishState = :pending AND attribute_not_exists(publishUncertainLogin)',
      ExpressionAttributeValues: { ':login': login, ':pending': PENDING },
    });
  }

  async scheduleRetry(ref: ArticleRef, retry: PublicationRetry): Promise<boolean> {
    const uncertain = uncertainLoginUpdate(retry.uncertainLogin);
    return this.conditionalUpdate(ref, {
      UpdateExpression: `SET publishAttempts = :attempts, sweepBucket = :bucket, sweepAt = :next, publishRetryAt = :next, publishError = :error${uncertain.set}${uncertain.remove ? ` REMOVE ${uncertain.remove}` : ''}`,
      ConditionExpression: 'publishState = :pending',
      ExpressionAttributeValues: {
        ':attempts': retry.attempts,
        ':bucket': publicationBucket(ref.articleUuid),
        ':next': retry.nextAttemptAt,
        ':error': errorText(retry.lastError),
        ':pending': PENDING,
        ...uncertain.values,
      },
    });
  }

  async markFailed(ref: ArticleRef, failure: PublicationFailure): Promise<boolean> {
    const uncertain = uncertainLoginUpdate(failure.uncertainLogin);
    const removes = [
      'sweepBucket',
      'sweepAt',
      'publishRetryAt',
      ...(uncertain.remove ? [uncertain.remove] : []),
    ];
    return this.conditionalUpdate(
      ref,
      {
        UpdateExpression: `SET publishState = :failed, publishAttempts = :attempts, publishError = :error, publishFailedAt = :at${uncertain.set} REMOVE ${removes.join(', ')}`,
        ConditionExpression: 'publishState = :pending',
        ExpressionAttributeValues: {
          ':failed': FAILED,
          ':attempts': failure.attempts,
          ':error': errorText(failure.lastError),
          ':at': failure.failedAt,
          ':pending': PENDING,
          ...uncertain.values,
        },
      },
      'article.publish_failed',
    );
  }

  async requeueFailed(ref: ArticleRef, dueAt: string): Promise<boolean> {
    return this.conditionalUpdate(ref, {
      UpdateExpression:
        'SET publishState = :pending, publishAttempts = :zero, sweepBucket = :bucket, sweepAt = :due, publishRetryAt = :due REMOVE publishFailedAt, publishError',
      ConditionExpression: 'publishState = :failed',
      ExpressionAttributeValues: {
        ':pending': PENDING,
        ':zero': 0,
        ':bucket': publicationBucket(ref.articleUuid),
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
        refs.push(...(page.Items ?? []).map(refFromItem));
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

  /** The articles of one kind of the sweep index due by `dueBy`, oldest due first. */
  private async dueIn(kind: SweepBucket, dueBy: string, limit: number): Promise<ArticleRef[]> {
    const due = await dueInSweepIndex(
      this.client,
      this.tableName,
      kind,
      dueBy,
      limit,
      'accountId, articleUuid, sweepAt',
    );
    return due.map(refFromItem);
  }

  /** The update, with the webhook event `reported` in its transaction when an endpoint wants it. */
  private async conditionalUpdate(
    ref: ArticleRef,
    update: ConditionalUpdate,
    reported?: WebhookEventType,
  ): Promise<boolean> {
    const event =
      reported &&
      (await this.events?.stage(ref.accountId, reported, { kind: 'article', uuid: ref.articleUuid }));
    const key = articleKey(ref);
    return updateWithEvent(
      this.client,
      this.tableName,
      key,
      update,
      event || undefined,
      articleRecordAfter(this.client, this.tableName, key),
    );
  }
}

/**
 * The uncertain login's part of an update (`PublicationRetry.uncertainLogin`): a login is set,
 * `null` removes it, absent leaves it.
 */
function uncertainLoginUpdate(uncertainLogin: string | null | undefined): {
  set: string;
  remove?: string;
  values: Record<string, string>;
} {
  if (uncertainLogin === null) return { set: '', remove: 'publishUncertainLogin', values: {} };
  if (uncertainLogin === undefined) return { set: '', values: {} };
  return { set: ', publishUncertainLogin = :login', values: { ':login': uncertainLogin } };
}
