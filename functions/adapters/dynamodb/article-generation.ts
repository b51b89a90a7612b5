/**
 * The generation lifecycle on article items: the worker's lease and attempts, and the final
 * success (the list sequence, website counters and the day's usage in the same transaction) or
 * failure (with its refund). With an outbox, each final state stores its webhook event
 * (`article.generated`, `article.failed`) in its transaction.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import { canFailGeneration, completion, errorText, leaseRefusal } from '../../core/articles/article-rules';
import { MAX_GENERATION_ATTEMPTS } from '../../core/articles/lifecycle-policy';
import type {
  ArticleKey,
  GenerationLifecycle,
  GenerationResult,
  LeaseOutcome,
} from '../../core/articles/ports';
import type { SourceReport } from '../../core/sources/article-sources';
import { articleFromItem, articleKey, generationBucket, type Item, publicationBucket } from './article-item';
import { endWithRefund, readArticle } from './article-refund';
import { updateIfCondition } from './conditional-update';
import type { EventOutbox, StagedEvent } from './event-outbox';
import { articleAfter, readArticleAfter, websiteAfter } from './event-records';
import { websiteKeys } from './keys';
import { queueCountUpdates } from './queue-positions';
import { conditionFailed, transactWithRetry } from './transactions';
import { usageKeys } from './usage-repository';

export interface GenerationTables {
  articles: string;
  accounts: string;
  websites: string;
  /** Generated articles and credits per UTC day (`GET /v1/account/usage`), counted at completion. */
  usageDays: string;
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Completions of one account race for its next place in the generated list (`generatedCount`):
 * each lost round is another completion's win, and with a hundred at once the last needs many
 * rounds. A completion that gave up would wait out its lease and be written again by the model.
 */
const COMPLETION_ATTEMPTS = 100;

export class DynamoGenerationLifecycle implements GenerationLifecycle {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: GenerationTables,
    private readonly events?: EventOutbox,
  ) {}

  get(accountId: string, articleUuid: string): Promise<Article | undefined> {
    return readArticle(this.client, this.tables.articles, { accountId, articleUuid });
  }

  async takeLease(
    ref: ArticleKey,
    leaseId: string,
    now: string,
    leaseUntil: string,
    maxAttempts: number,
  ): Promise<LeaseOutcome> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tables.articles,
          Key: articleKey(ref),
          UpdateExpression:
            'SET leaseOwner = :owner, leaseExpiresAt = :until, generationAttempts = if_not_exists(generationAttempts, :zero) + :one, sweepBucket = :bucket, sweepAt = :until',
          // canTakeLease, as a condition.
          ConditionExpression:
            '#state = :queued AND (attribute_not_exists(leaseExpiresAt) OR leaseExpiresAt < :now) AND (attribute_not_exists(generationAttempts) OR generationAttempts < :max)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':owner': leaseId,
            ':until': leaseUntil,
            ':zero': 0,
            ':one': 1,
            ':bucket': generationBucket(ref.articleUuid),
            ':queued': 'queued',
            ':now': now,
            ':max': maxAttempts,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { kind: 'leased', article: articleFromItem(Attributes ?? {}) };
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
    return leaseRefusal(await this.get(ref.accountId, ref.articleUuid), now, maxAttempts);
  }

  renewLease(article: ArticleKey, leaseId: string, leaseUntil: string): Promise<boolean> {
    return this.update(article, {
      UpdateExpression: 'SET leaseExpiresAt = :until, sweepAt = :until',
      ConditionExpression: '#state = :queued AND leaseOwner = :owner',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':until': leaseUntil, ':queued': 'queued', ':owner': leaseId },
    });
  }

  async releaseLease(article: ArticleKey, leaseId: string, reason: string, recheckAt: string): Promise<void> {
    await this.update(article, {
      UpdateExpression: 'SET lastError = :reason, sweepAt = :at REMOVE leaseOwner, leaseExpiresAt',
      ConditionExpression: '#state = :queued AND leaseOwner = :owner',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':reason': errorText(reason),
        ':at': recheckAt,
        ':queued': 'queued',
        ':owner': leaseId,
      },
    });
  }

  async completeGeneration(article: Article, leaseId: string, result: GenerationResult): Promise<boolean> {
    let countOnWebsite = article.websiteUuid !== undefined;
    // Images that could not be had give their credits back in this same transaction: exactly once.
    const imageRefund = Math.min(result.imageRefund ?? 0, article.creditsCharged);
    const charged = { ...article, creditsCharged: article.creditsCharged - imageRefund };
    const event = await this.events?.stage(article.accountId, 'article.generated', {
      kind: 'article',
      uuid: article.articleUuid,
    });
    const completed = await transactWithRetry<boolean>(
      this.client,
      async () => {
        const previous = await this.generatedCount(article.accountId);
        const completion = this.completedArticle(article, leaseId, result, previous + 1, imageRefund);
        const transactItems: TransactItem[] = [
          completion,
          {
            Update: {
              TableName: this.tables.accounts,
              Key: { accountId: article.accountId },
              UpdateExpression: `SET generatedCount = :seq${imageRefund > 0 ? ' ADD credits :imageRefund' : ''}`,
              ConditionExpression:
                previous === 0
                  ? 'attribute_not_exists(generatedCount) OR generatedCount = :previous'
                  : 'generatedCount = :previous',
              ExpressionAttributeValues: {
                ':seq': previous + 1,
                ':previous': previous,
                ...(imageRefund > 0 ? { ':imageRefund': imageRefund } : {}),
              },
            },
          },
        ];
        const counted = countOnWebsite ? this.countedOnWebsite(charged) : undefined;
        if (counted) transactItems.push(counted);
        transactItems.push(usageDayUpdate(this.tables.usageDays, charged, result.generatedAt));
        // It leaves the queue listing.
        if (article.queueSeq !== undefined) {
          transactItems.push(
            ...queueCountUpdates(this.tables.articles, article.accountId, article.queueSeq, -1),
          );
        }
        const eventPut = event && (await this.generatedEventPut(event, article, completion, counted));
        if (eventPut) transactItems.push(eventPut);
        return { TransactItems: transactItems };
      },
      true,
      (codes) => {
        // Completed (or failed) by another delivery, or the lease was lost.
        if (conditionFailed(codes, 0)) return { result: false };
        // The website was deleted meanwhile: the article is still generated, just not counted there.
        if (conditionFailed(codes, 2)) {
          countOnWebsite = false;
          return 'retry';
        }
        // Another article of the account took this place in the list first: read it again.
        if (conditionFailed(codes, 1)) return 'retry';
        return undefined;
      },
      COMPLETION_ATTEMPTS,
    );
    if (completed) await event?.committed();
    return completed;
  }

  async failGeneration(
    article: ArticleKey,
    reason: string,
    failedAt: string,
    leaseId?: string,
    sources?: SourceReport[],
  ): Promise<boolean> {
    const event = await this.events?.stage(article.accountId, 'article.failed', {
      kind: 'article',
      uuid: article.articleUuid,
    });
    const failed = await endWithRefund(
      this.client,
      this.tables,
      article,
      (current) =>
        !canFailGeneration(current, failedAt, leaseId)
          ? undefined
          : {
              UpdateExpression: `SET #state = :error, creditsCharged = :zero, lastError = :reason, failedAt = :failedAt${
                sources ? ', failedSources = :sources' : ''
              } REMOVE sweepBucket, sweepAt, leaseOwner, leaseExpiresAt`,
              // canFailGeneration, as a condition: the worker's lease, or every attempt used
              // and no live lease.
              ConditionExpression: `#state = :queued AND creditsCharged = :refund AND ${
                leaseId !== undefined
                  ? 'leaseOwner = :lease'
                  : 'generationAttempts >= :max AND (attribute_not_exists(leaseExpiresAt) OR leaseExpiresAt < :failedAt)'
              }`,
              ExpressionAttributeValues: {
                ':error': 'error',
                ':zero': 0,
                ':reason': errorText(reason),
                ':failedAt': failedAt,
                ...(sources ? { ':sources': sources } : {}),
                ':queued': 'queued',
                ...(leaseId !== undefined ? { ':lease': leaseId } : { ':max': MAX_GENERATION_ATTEMPTS }),
              },
            },
      // Not queued any more (failed or completed by another delivery), or not this one to fail.
      { result: false },
      async (current, update) =>
        event ? [await event.put({ kind: 'article', article: articleAfter(current, update) })] : [],
    );
    if (failed) await event?.committed();
    return failed;
  }

  /**
   * The `article.generated` event's item: the article, and its website, as the completing
   * transaction leaves them. None when the article is gone (the completion's condition fails).
   */
  private async generatedEventPut(
    event: StagedEvent,
    article: Article,
    completion: TransactItem,
    counted: TransactItem | undefined,
  ): Promise<TransactItem | undefined> {
    if (!completion.Update) return undefined;
    const key = articleKey(article);
    const generated = await readArticleAfter(this.client, this.tables.articles, key, completion.Update);
    if (!generated) return undefined;
    const websiteUpdate = counted?.Update;
    return event.put({
      kind: 'article',
      article: generated,
      ...(websiteUpdate ? { websiteChange: (website) => websiteAfter(website, websiteUpdate) } : {}),
    });
  }

  /** The completed article counted on its website, with the credits it used. */
  private countedOnWebsite(article: Article): TransactItem | undefined {
    if (!article.websiteUuid) return undefined;
    return {
      Update: {
        TableName: this.tables.websites,
        Key: websiteKeys.website(article.accountId, article.websiteUuid),
        UpdateExpression: 'ADD articlesCount :one, totalCreditsUsed :credits',
        ConditionExpression: 'attribute_exists(websiteKey)',
        ExpressionAttributeValues: { ':one': 1, ':credits': article.creditsCharged },
      },
    };
  }

  private async generatedCount(accountId: string): Promise<number> {
    const { Item: account } = await this.client.send(
      new GetCommand({
        TableName: this.tables.accounts,
        Key: { accountId },
        ProjectionExpression: 'generatedCount',
        ConsistentRead: true,
      }),
    );
    return Number(account?.generatedCount ?? 0);
  }

  /** The article's move to `generated`, at place `seq` of the list; with a website, publication pending. */
  private completedArticle(
    article: Article,
    leaseId: string,
    result: GenerationResult,
    seq: number,
    imageRefund: number,
  ): TransactItem {
    const { slug, publishCheckAt } = completion(article, result);
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
      ':seq': seq,
      ':lease': leaseId,
    };
    let update =
      'SET #state = :generated, generatedTitle = :title, content = :content, totalWords = :words, providerModel = :providerModel, promptTokens = :promptTokens, completionTokens = :completionTokens, generatedAt = :generatedAt, generatedSeq = :seq';
    if (result.seo) {
      update += ', seo = :seo';
      values[':seo'] = result.seo;
    }
    if (result.images) {
      update += ', images = :images';
      values[':images'] = result.images;
    }
    if (imageRefund > 0) {
      update += ', creditsCharged = creditsCharged - :imageRefund, imageCreditsRefunded = :imageRefund';
      values[':imageRefund'] = imageRefund;
    }
    if (publishCheckAt) {
      update +=
        ', slug = :slug, publishState = :pending, publishAttempts = :zero, sweepBucket = :publication, sweepAt = :publishCheck, publishRetryAt = :publishCheck REMOVE queueSortKey, leaseOwner, leaseExpiresAt';
      Object.assign(values, {
        ':slug': slug,
        ':pending': 'pending',
        ':zero': 0,
        ':publication': publicationBucket(article.articleUuid),
        ':publishCheck': publishCheckAt,
      });
    } else {
      update += ' REMOVE queueSortKey, sweepBucket, sweepAt, leaseOwner, leaseExpiresAt';
    }
    return {
      Update: {
        TableName: this.tables.articles,
        Key: articleKey(article),
        UpdateExpression: update,
        ConditionExpression: '#state = :queued AND leaseOwner = :lease',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: values,
      },
    };
  }

  private update(article: ArticleKey, update: Parameters<typeof updateIfCondition>[3]): Promise<boolean> {
    return updateIfCondition(this.client, this.tables.articles, articleKey(article), update);
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
