/**
 * The worker's use case: generate a queued article exactly once, or fail it and refund once.
 * The worker takes a lease on the article (renewed while it works), so a duplicate delivery
 * never generates it twice, and a worker that dies leaves a lease that expires for the
 * sweeper to notice. Failed attempts come back after a backoff of seconds to minutes.
 */
import { randomUUID } from 'node:crypto';
import { type SourceDeps, SourcesUnavailableError } from '../sources/article-sources';
import { siteHostOf } from '../sources/citations';
import type { Article } from './article';
import type { ArticleModelProvider } from './article-model';
import { writeGeneration } from './generation-step';
import {
  ATTEMPT_BUDGET_MS,
  BUSY_RECHECK_SECONDS,
  generationRetryDelaySeconds,
  LEASE_MS,
  LEASE_RENEW_MS,
  MAX_GENERATION_ATTEMPTS,
  RETRY_DELIVERY_GRACE_MS,
} from './lifecycle-policy';
import type {
  Clock,
  GenerationDelivery,
  GenerationLifecycle,
  GenerationMessage,
  WebsiteLookup,
} from './ports';
import type { WrittenArticle } from './write-article';

export type GenerationOutcome =
  /** Generated now. */
  | 'generated'
  /** Nothing to generate: done, failed, cancelled or deferred already, or unknown. */
  | 'skipped'
  /**
   * Another worker holds the article: this delivery comes back when the lease ends (at most
   * `BUSY_RECHECK_SECONDS`), and then finds it done, or takes over from a worker that died.
   */
  | 'duplicate'
  /** This attempt failed; the delivery comes back after `retryInSeconds`. */
  | 'retry_scheduled'
  /** Failed for good: marked `error`, credits refunded. */
  | 'failed';

export interface GenerateArticleDeps {
  articles: GenerationLifecycle;
  models: ArticleModelProvider;
  clock: Clock;
  /** Source pages and web search (articles with `sources` or `research=web`). */
  sources?: SourceDeps;
  /** The article's website, whose host its links may point to (internal links). */
  websites?: Pick<WebsiteLookup, 'get'>;
}

export interface GenerationAttemptResult {
  outcome: GenerationOutcome;
  article?: Article;
  /** Why the attempt failed (outcomes `retry_scheduled` and `failed`). */
  failure?: string;
  retryInSeconds?: number;
}

/** One attempt took longer than `ATTEMPT_BUDGET_MS`. */
export class AttemptTimeoutError extends Error {
  override readonly name = 'AttemptTimeoutError';
  constructor() {
    super(`The generation attempt did not finish within ${ATTEMPT_BUDGET_MS / 1000} s.`);
  }
}

/**
 * Generates the article of one queue delivery. Never throws for a model failure: a failed
 * attempt releases the lease and asks the delivery back after the backoff (`retry_scheduled`),
 * and the last attempt fails the article with a refund. Storage errors are thrown (the
 * delivery then comes back after the queue's visibility timeout, or the lease expires).
 */
export async function generateQueuedArticle(
  deps: GenerateArticleDeps,
  message: GenerationMessage,
  delivery: GenerationDelivery,
): Promise<GenerationAttemptResult> {
  const owner = randomUUID();
  const now = deps.clock();
  const lease = await deps.articles.takeLease(
    message,
    owner,
    now.toISOString(),
    leaseUntil(now),
    MAX_GENERATION_ATTEMPTS,
  );
  if (lease.kind === 'busy') {
    const untilExpiry = Math.ceil((Date.parse(lease.leaseExpiresAt) - now.getTime()) / 1000) + 1;
    const retryInSeconds = Math.max(1, Math.min(BUSY_RECHECK_SECONDS, untilExpiry));
    await delivery.retryAfter(retryInSeconds).catch(() => undefined);
    return { outcome: 'duplicate', retryInSeconds };
  }
  if (lease.kind === 'not_queued')
    return lease.article ? { outcome: 'skipped', article: lease.article } : { outcome: 'skipped' };
  if (lease.kind === 'exhausted') {
    // Its last attempt's worker died: nothing will try again.
    return failForGood(deps, lease.article, lease.article.lastError ?? 'Generation did not finish.');
  }

  const article = lease.article;
  let written: WrittenArticle;
  let providerModel: string;
  const renewal = setInterval(() => {
    deps.articles.renewLease(article, owner, leaseUntil(deps.clock())).catch(() => undefined);
  }, LEASE_RENEW_MS);
  try {
    const model = await deps.models.modelFor(article.aiModel);
    providerModel = model.providerModel;
    const website = article.websiteUuid
      ? await deps.websites?.get(article.accountId, article.websiteUuid)
      : undefined;
    const siteHost = siteHostOf(website?.url);
    written = await withinBudget(
      writeGeneration(model, article, {
        ...(deps.sources ? { sources: deps.sources } : {}),
        ...(siteHost ? { siteHost } : {}),
      }),
    );
  } catch (error) {
    clearInterval(renewal);
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    // Required sources that could not be fetched: failed (and refunded) now, not retried.
    if (
      error instanceof SourcesUnavailableError ||
      (article.generationAttempts ?? 1) >= MAX_GENERATION_ATTEMPTS
    )
      return failForGood(deps, article, reason);
    return retryLater(deps, delivery, article, owner, reason);
  } finally {
    clearInterval(renewal);
  }

  let completed: boolean;
  try {
    completed = await deps.articles.completeGeneration(article, {
      title: written.title,
      content: written.content,
      totalWords: written.totalWords,
      providerModel,
      promptTokens: written.usage.promptTokens,
      completionTokens: written.usage.completionTokens,
      generatedAt: deps.clock().toISOString(),
      seo: written.seo,
    });
  } catch (error) {
    // Storage failed (or the worker is going down): hand the article back for the next delivery.
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    await retryLater(deps, delivery, article, owner, reason).catch(() => undefined);
    throw error;
  }
  if (!completed) return { outcome: 'skipped', article };
  const generated = await deps.articles.get(article.accountId, article.articleUuid);
  return { outcome: 'generated', ...(generated ? { article: generated } : {}) };
}

/** Releases the lease and asks the delivery back after the attempt's backoff. */
async function retryLater(
  deps: GenerateArticleDeps,
  delivery: GenerationDelivery,
  article: Article,
  owner: string,
  reason: string,
): Promise<GenerationAttemptResult> {
  const retryInSeconds = generationRetryDelaySeconds(article.generationAttempts ?? 1);
  const recheckAt = new Date(deps.clock().getTime() + retryInSeconds * 1000 + RETRY_DELIVERY_GRACE_MS);
  // The delivery first (if storage is down, the lease below cannot be given back: the retry
  // then waits for it to expire); if this fails, the sweeper re-sends after `recheckAt`.
  await delivery.retryAfter(retryInSeconds).catch(() => undefined);
  await deps.articles.releaseLease(article, owner, reason, recheckAt.toISOString());
  return { outcome: 'retry_scheduled', article, failure: reason, retryInSeconds };
}

async function failForGood(
  deps: GenerateArticleDeps,
  article: Article,
  reason: string,
): Promise<GenerationAttemptResult> {
  const failed = await deps.articles.failGeneration(article, reason, deps.clock().toISOString());
  return failed ? { outcome: 'failed', article, failure: reason } : { outcome: 'skipped', article };
}

function leaseUntil(now: Date): string {
  return new Date(now.getTime() + LEASE_MS).toISOString();
}

/** The attempt's result, or an AttemptTimeoutError once the budget is spent. */
function withinBudget<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AttemptTimeoutError()), ATTEMPT_BUDGET_MS);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
