/** A client's second thoughts: retry what failed, cancel what has not started. */
import type { AccountStore } from '../accounts';
import { ConflictError, UnauthenticatedError } from '../errors';
import type { Publications } from '../publishing/ports';
import type { Article } from './article';
import { sendForGeneration } from './generation-messages';
import { PUBLISH_GRACE_MS } from './lifecycle-policy';
import type { ArticleReads, ArticleReservations, Clock, GenerationDispatch, GenerationQueue } from './ports';
import { findArticle, type ReadArticlesDeps, showArticle } from './read-articles';
import { reservationAt } from './reservation-policy';

export interface ArticleActionDeps extends ReadArticlesDeps {
  articles: ArticleReads & Pick<ArticleReservations, 'retryReservation'> & GenerationDispatch;
  accounts: AccountStore;
  publications: Pick<Publications, 'requeueFailed'>;
  queue: GenerationQueue;
  clock: Clock;
}

/**
 * Retries a generation in `error` (a new reservation: charged again, or deferred like a new
 * article) or a `failed` publication (pending again, sent to the worker at once). Any other
 * state is a 409.
 */
export async function retryArticle(deps: ArticleActionDeps, accountId: string, articleUuid: string) {
  const article = await findArticle(deps, accountId, articleUuid);
  const now = deps.clock();
  if (article.state === 'error') {
    const account = await deps.accounts.get(accountId);
    if (!account) throw new UnauthenticatedError();
    const outcome = await deps.articles.retryReservation(
      article,
      reservationAt(now, article.estimatedCredits, account.dailyLimit),
      ['error'],
    );
    if (outcome === undefined) throw await lostRace(deps, article, 'retried');
    if (outcome === 'reserved') await sendForGeneration(deps, article, now);
  } else if (article.state === 'generated' && article.publishState === 'failed') {
    if (article.websiteUuid === undefined || !(await deps.websites.get(accountId, article.websiteUuid))) {
      throw new ConflictError(
        'This article’s publication failed because its website was deleted; it cannot be published again.',
      );
    }
    // Due for the sweeper only after the worker's grace, as after generation: both at once would
    // send the site two requests for the post.
    const sweepAt = new Date(now.getTime() + PUBLISH_GRACE_MS).toISOString();
    if (!(await deps.publications.requeueFailed(article, sweepAt)))
      throw await lostRace(deps, article, 'retried');
    // The worker publishes it at once; if the send fails, the sweeper does when it is due.
    await deps.queue.enqueue({ accountId, articleUuid: article.articleUuid }).catch(() => undefined);
  } else {
    throw conflict(article, 'retried');
  }
  return showArticle(deps, accountId, article.articleUuid);
}

export interface CancelArticleDeps extends ReadArticlesDeps {
  articles: ArticleReads & Pick<ArticleReservations, 'cancel'>;
  clock: Clock;
}

/**
 * Cancels an article whose generation has not started (waiting in the queue, or deferred for
 * credits or the daily limit) and refunds what it holds, exactly once. Any other state is a 409.
 */
export async function cancelArticle(deps: CancelArticleDeps, accountId: string, articleUuid: string) {
  const article = await findArticle(deps, accountId, articleUuid);
  if (!(await deps.articles.cancel(article, deps.clock().toISOString()))) {
    throw await lostRace(deps, article, 'cancelled');
  }
  return showArticle(deps, accountId, article.articleUuid);
}

/** The 409 of an action whose write found the article changed since it was read: says what it is now. */
async function lostRace(
  deps: { articles: Pick<ArticleReads, 'get'> },
  article: Article,
  action: 'retried' | 'cancelled',
): Promise<ConflictError> {
  return conflict((await deps.articles.get(article.accountId, article.articleUuid)) ?? article, action);
}

function conflict(article: Article, action: 'retried' | 'cancelled'): ConflictError {
  const where = describe(article);
  return action === 'retried'
    ? new ConflictError(
        `Only an article whose generation failed (status error) or whose publication failed can be retried; this article ${where}.`,
      )
    : new ConflictError(
        `Only an article whose generation has not started can be cancelled; this article ${where}.`,
      );
}

function describe(article: Article): string {
  switch (article.state) {
    case 'queued':
      return (article.generationAttempts ?? 0) > 0 || article.leaseOwner
        ? 'is being generated'
        : 'is waiting for generation';
    case 'not_enough_credits':
      return 'is waiting for credits';
    case 'daily_limit_reached':
      return 'is waiting for the daily limit';
    case 'error':
      return 'failed to generate';
    case 'cancelled':
      return 'was cancelled';
    case 'outline_ready':
      return 'waits for its outline to be approved';
    case 'generated':
      if (article.publishState === 'published') return 'is generated and published';
      if (article.publishState === 'failed') return 'is generated and its publication failed';
      return article.websiteUuid ? 'is generated and being published' : 'is generated';
  }
}
