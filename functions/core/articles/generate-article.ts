/** The worker's use case: generate a queued article exactly once, or fail it and refund once. */
import type { Article } from './article';
import type { ArticleModelProvider } from './article-model';
import type { ArticleStore, Clock, GenerationMessage } from './ports';
import { writeArticle } from './write-article';

export type GenerationOutcome =
  /** Generated now. */
  | 'generated'
  /** Nothing to do: generated or failed by an earlier delivery, or not queued. */
  | 'skipped'
  /** Failed on the last delivery: marked `error`, credits refunded. */
  | 'failed';

export interface GenerateArticleDeps {
  articles: ArticleStore;
  models: ArticleModelProvider;
  clock: Clock;
}

/**
 * Generates the article of a queue message. A failure is thrown (so the queue delivers again)
 * unless this is the last delivery, when the article goes to `error` with its credits refunded.
 */
export async function generateQueuedArticle(
  deps: GenerateArticleDeps,
  message: GenerationMessage,
  delivery: { isLastAttempt: boolean },
): Promise<{ outcome: GenerationOutcome; article?: Article; failure?: string }> {
  const article = await deps.articles.get(message.accountId, message.articleUuid);
  if (article?.state !== 'queued') return article ? { outcome: 'skipped', article } : { outcome: 'skipped' };

  let written: Awaited<ReturnType<typeof writeArticle>>;
  let providerModel: string;
  try {
    const model = await deps.models.modelFor(article.aiModel);
    providerModel = model.providerModel;
    written = await writeArticle(model, article);
  } catch (error) {
    if (!delivery.isLastAttempt) throw error;
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const failed = await deps.articles.failGeneration(article, reason, deps.clock().toISOString());
    return failed ? { outcome: 'failed', article, failure: reason } : { outcome: 'skipped', article };
  }

  const generatedAt = deps.clock().toISOString();
  const completed = await deps.articles.completeGeneration(article, {
    title: written.title,
    content: written.content,
    totalWords: written.totalWords,
    providerModel,
    promptTokens: written.usage.promptTokens,
    completionTokens: written.usage.completionTokens,
    generatedAt,
    seo: written.seo,
  });
  if (!completed) return { outcome: 'skipped', article };
  const generated = await deps.articles.get(article.accountId, article.articleUuid);
  return { outcome: 'generated', ...(generated ? { article: generated } : {}) };
}
