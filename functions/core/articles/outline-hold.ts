/** The worker's end of an attempt that wrote only the outline: held for the client's approval. */
import type { Article } from './article';
import type { Outline, TokenUsage } from './article-model';
import type { GenerateArticleDeps, GenerationAttemptResult } from './generate-article';
import { outlineExpiry } from './outline-rules';

/**
 * Moves the leased article to `outline_ready` with its outline (and the `article.outline_ready`
 * event), for `OUTLINE_REVIEW_DAYS`; a worker that lost its lease meanwhile changes nothing.
 */
export async function holdOutlineForReview(
  deps: GenerateArticleDeps,
  article: Article,
  owner: string,
  step: { outline: Outline; usage: TokenUsage },
): Promise<GenerationAttemptResult> {
  if (!deps.articles.holdForReview) throw new Error('This article store cannot hold outlines for review.');
  const now = deps.clock();
  const held = await deps.articles.holdForReview(article, owner, {
    outline: step.outline,
    usage: step.usage,
    readyAt: now.toISOString(),
    expiresAt: outlineExpiry(now),
  });
  if (!held) return { outcome: 'skipped', article };
  const current = await deps.articles.get(article.accountId, article.articleUuid);
  return { outcome: 'outline_ready', ...(current ? { article: current } : {}) };
}
