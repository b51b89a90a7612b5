/** Outline review's state rules, for every store (DynamoDB and the fakes) and the worker. */
import { slugify } from '../slug';
import type { Article } from './article';
import type { Outline } from './article-model';

/** How long an outline waits for its approval before it is cancelled and refunded. */
export const OUTLINE_REVIEW_DAYS = 7;

/** Generation of this article stops after the outline: asked for, not approved yet. */
export function awaitsOutline(article: Pick<Article, 'outlineReview' | 'outlineApproved'>): boolean {
  return article.outlineReview === true && article.outlineApproved !== true;
}

/** When an outline ready at `readyAt` and still not approved is cancelled. */
export function outlineExpiry(readyAt: Date): string {
  return new Date(readyAt.getTime() + OUTLINE_REVIEW_DAYS * 24 * 3600_000).toISOString();
}

/** What an approval stores on the article: the outline, the title it is written with, the slug. */
export function approvedArticle(
  article: Pick<Article, 'websiteUuid'>,
  outline: Outline,
): Pick<Article, 'outline' | 'title' | 'outlineApproved' | 'slug'> {
  return {
    outline,
    title: outline.title,
    outlineApproved: true,
    ...(article.websiteUuid !== undefined ? { slug: slugify(outline.title) } : {}),
  };
}

/** Whether an `outline_ready` article is due for expiry at `now` (ISO). */
export function outlineExpired(article: Pick<Article, 'state' | 'outlineExpiresAt'>, now: string): boolean {
  return (
    article.state === 'outline_ready' &&
    article.outlineExpiresAt !== undefined &&
    article.outlineExpiresAt <= now
  );
}
