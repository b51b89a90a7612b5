/** Sending an article's generation message, the same way from every place that does it. */
import type { Article } from './article';
import { WAITING_RECHECK_MS } from './lifecycle-policy';
import type { GenerationDispatch, GenerationQueue } from './ports';

export interface SendDeps {
  articles: GenerationDispatch;
  queue: GenerationQueue;
}

/**
 * Sends the message and records it, so that the article waits in the queue for as long as the
 * queue is long without the sweeper touching it. When the send fails the article is due for
 * the next sweep, which sends it again; returns whether the message went out.
 */
export async function sendForGeneration(
  deps: SendDeps,
  article: Pick<Article, 'accountId' | 'articleUuid'>,
  now: Date,
  onFailure?: (error: unknown) => void,
): Promise<boolean> {
  try {
    await deps.queue.enqueue({ accountId: article.accountId, articleUuid: article.articleUuid });
  } catch (error) {
    onFailure?.(error);
    await deps.articles.postponeCheck(article, now.toISOString()).catch(() => undefined);
    return false;
  }
  // Unrecorded, the sweeper sends it once more after the send grace: a harmless duplicate.
  await deps.articles
    .markSent(article, new Date(now.getTime() + WAITING_RECHECK_MS).toISOString())
    .catch(() => undefined);
  return true;
}
