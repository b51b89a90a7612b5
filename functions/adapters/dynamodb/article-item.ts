/**
 * The article item: the domain article plus the attributes only the indexes use. Every read of
 * an article item and every full item written goes through here.
 */
import type { Article } from '../../core/articles/article';
import type { ArticleRef } from '../../core/publishing/ports';
import { articleKeys, SWEEP_BUCKET, type SweepBucket, sweepBucketOf } from './keys';
import { queueSortKeyOf } from './queue-positions';

export type Item = Record<string, unknown>;

/** Attributes that only serve the indexes; stripped when reading. */
const INDEX_ATTRIBUTES = ['queueSortKey', 'sweepBucket', 'sweepAt'] as const;

/** Where an article sits in the indexes: the queue listing and the sweeper's due work. */
export interface IndexPlacement {
  /** In the queue listing (not generated and not cancelled): the article has its `queueSeq`. */
  queued: boolean;
  /** The sweeper's kind of work for it, and when it is due. */
  sweep?: { kind: SweepBucket; at: string };
}

export function articleToItem(article: Article, placement: IndexPlacement): Item {
  return {
    ...article,
    ...(placement.queued && article.queueSeq !== undefined
      ? { queueSortKey: queueSortKeyOf(article.queueSeq) }
      : {}),
    ...(placement.sweep
      ? { sweepBucket: sweepBucketOf(placement.sweep.kind, article.articleUuid), sweepAt: placement.sweep.at }
      : {}),
  };
}

export function articleFromItem(item: Item): Article {
  const article = { ...item };
  for (const attribute of INDEX_ATTRIBUTES) delete article[attribute];
  return article as unknown as Article;
}

/** The key attributes of an item read with a projection. */
export function refFromItem(item: Item): ArticleRef {
  return { accountId: String(item.accountId), articleUuid: String(item.articleUuid) };
}

export const articleKey = (ref: Pick<Article, 'accountId' | 'articleUuid'>) =>
  articleKeys.article(ref.accountId, ref.articleUuid);

/** The sweep partition of an article's generation work. */
export const generationBucket = (articleUuid: string) => sweepBucketOf(SWEEP_BUCKET.generation, articleUuid);
export const publicationBucket = (articleUuid: string) =>
  sweepBucketOf(SWEEP_BUCKET.publication, articleUuid);
export const confirmationBucket = (articleUuid: string) =>
  sweepBucketOf(SWEEP_BUCKET.confirmation, articleUuid);
