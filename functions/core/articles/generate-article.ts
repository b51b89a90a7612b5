/**
 * The worker's use case: generate a queued article exactly once, or fail it and refund once.
 * The worker takes a lease on the article (renewed while it works), so a duplicate delivery
 * never generates it twice, and a worker that dies leaves a lease that expires for the
 * sweeper to notice. Every write of an attempt is conditional on its lease id, and an attempt
 * whose lease was lost, or whose time budget is spent, is aborted (the model call with it).
 * Failed attempts come back after a backoff of seconds to minutes.
 */
import { randomUUID } from 'node:crypto';
import { type SourceDeps, type SourceReport, SourcesUnavailableError } from '../sources/article-sources';
import { siteHostOf } from '../sources/citations';
import type { Article } from './article';
import {
  type ArticleImageDeps,
  ImageStoring,
  type ImagesOutcome,
  imageKeysOf,
  imagesBeside,
} from './article-images';
import type { ArticleModelProvider } from './article-model';
import { type GenerationStep, generationStep } from './generation-step';
import type { SiteForLinks } from './internal-links';
import {
  ATTEMPT_BUDGET_MS,
  GENERATION_TIMINGS,
  type GenerationTimings,
  generationRetryDelaySeconds,
  MAX_GENERATION_ATTEMPTS,
  RETRY_DELIVERY_GRACE_MS,
} from './lifecycle-policy';
import { holdOutlineForReview } from './outline-hold';
import type {
  Clock,
  GenerationDelivery,
  GenerationLifecycle,
  GenerationMessage,
  OutlineReviews,
  WebsiteLookup,
} from './ports';

export type GenerationOutcome =
  /** Generated now. */
  | 'generated'
  /** Its outline was written and waits for the client's approval (`outline_ready`). */
  | 'outline_ready'
  /** Nothing to generate: done, failed, cancelled or deferred already, or unknown. */
  | 'skipped'
  /**
   * Another worker holds the article (or gave it back a moment ago for a retry): this delivery
   * is done and deleted. The holder's lease guarantees progress: it completes, fails, or asks
   * its own delivery back, and if it dies the sweeper re-sends the article once the lease expires.
   */
  | 'duplicate'
  /** This attempt's lease was taken over (it expired) or the article moved on: stopped, nothing written. */
  | 'lease_lost'
  /** This attempt failed; the delivery comes back after `retryInSeconds`. */
  | 'retry_scheduled'
  /** Failed for good: marked `error`, credits refunded. */
  | 'failed';

/**
 * Whether the delivery is kept to come back (after the backoff it was given): only a retry.
 * Every other outcome deletes it, so normal operation never brings a message to the
 * dead-letter queue.
 */
export function deliveryKept(outcome: GenerationOutcome): boolean {
  return outcome === 'retry_scheduled';
}

export interface GenerateArticleDeps {
  articles: GenerationLifecycle & Partial<Pick<OutlineReviews, 'holdForReview'>>;
  models: ArticleModelProvider;
  clock: Clock;
  /** Source pages and web search (articles with `sources` or `research=web`). */
  sources?: SourceDeps;
  /** The article's website, whose host its links may point to (internal links). */
  websites?: Pick<WebsiteLookup, 'get'>;
  /** The site index of an article's website, refreshed when stale (site-index.ts); without it, no links. */
  siteLinks?: (article: Article) => Promise<SiteForLinks | undefined>;
  /** Making and storing images (article-images.ts); without it, images asked for are refunded. */
  images?: ArticleImageDeps;
  /** Told about each image that could not be had (its credits go back at completion). */
  onImageFailure?: (article: Article, slot: string, reason: string) => void;
  /** The lease and retry delays (default the deployed ones, `GENERATION_TIMINGS`). */
  timings?: GenerationTimings;
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

/** The attempt's lease is held by it no more (a renewal was refused): it stops. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor() {
    super('The generation lease was lost; the attempt stopped.');
  }
}

/** Renewals failed until the lease could run out before the next one: the attempt stops. */
export class LeaseRenewalError extends Error {
  override readonly name = 'LeaseRenewalError';
  constructor() {
    super('The generation lease could not be renewed; the attempt stopped.');
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
  const leaseId = randomUUID();
  const now = deps.clock();
  const lease = await deps.articles.takeLease(
    message,
    leaseId,
    now.toISOString(),
    leaseUntil(deps, now),
    MAX_GENERATION_ATTEMPTS,
  );
  // A duplicate is never kept to come back: it would reach the dead-letter queue during a
  // long attempt (docs/decisions.md, "A duplicate delivery is deleted").
  if (lease.kind === 'busy' || lease.kind === 'released') return { outcome: 'duplicate' };
  if (lease.kind === 'not_queued')
    return lease.article ? { outcome: 'skipped', article: lease.article } : { outcome: 'skipped' };
  if (lease.kind === 'exhausted') {
    // Its last attempt's worker died: nothing will try again.
    return failForGood(deps, lease.article, lease.article.lastError ?? 'Generation did not finish.');
  }

  const article = lease.article;
  const attempt = new AbortController();
  const stopRenewing = keepLease(deps, article, leaseId, attempt);
  let step: GenerationStep;
  let providerModel: string;
  let images: Promise<ImagesOutcome> | undefined;
  let imageOutcome: ImagesOutcome | undefined;
  const storing = new ImageStoring();
  try {
    // Read beside the outline: the index refresh is a call to the site.
    const site = article.websiteUuid ? deps.siteLinks?.(article) : undefined;
    site?.catch(() => undefined);
    const model = await deps.models.modelFor(article.aiModel, attempt.signal);
    providerModel = model.providerModel;
    const website = article.websiteUuid
      ? await deps.websites?.get(article.accountId, article.websiteUuid)
      : undefined;
    const siteHost = siteHostOf(website?.url);
    step = await withinBudget(
      generationStep(model, article, {
        ...(deps.sources ? { sources: deps.sources } : {}),
        ...(siteHost ? { siteHost } : {}),
        ...(site ? { site } : {}),
        // Images are made beside the sections, from the final outline.
        onOutline: (outline, brief) => {
          images = imagesBeside(deps.images, model, brief, article, outline, storing);
        },
      }),
      attempt,
    );
    imageOutcome = images ? await withinBudget(images, attempt) : undefined;
  } catch (error) {
    stopRenewing();
    // The attempt failed while its images may still be made: none is stored from now on, and
    // those being stored are waited for, so the clean-up of a failure for good (or of the
    // attempt that fails the article later) runs after the last of them landed.
    await storing.close();
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (attempt.signal.reason instanceof LeaseLostError)
      return { outcome: 'lease_lost', article, failure: reason };
    // Required sources that could not be fetched: failed (and refunded) now, not retried.
    if (
      error instanceof SourcesUnavailableError ||
      (article.generationAttempts ?? 1) >= MAX_GENERATION_ATTEMPTS
    )
      return failForGood(
        deps,
        article,
        reason,
        leaseId,
        error instanceof SourcesUnavailableError ? error.sources : undefined,
      );
    return retryLater(deps, delivery, article, leaseId, reason);
  } finally {
    stopRenewing();
  }
  if (attempt.signal.reason instanceof LeaseLostError) {
    return { outcome: 'lease_lost', article, failure: `LeaseLostError: ${attempt.signal.reason.message}` };
  }

  // Outline review: the article waits for the client's approval of its outline.
  if (step.kind === 'outline') return holdOutlineForReview(deps, article, leaseId, step);
  const written = step.written;
  for (const failure of imageOutcome?.failures ?? []) {
    deps.onImageFailure?.(article, failure.slot, failure.reason);
  }
  let completed: boolean;
  try {
    completed = await deps.articles.completeGeneration(article, leaseId, {
      title: written.title,
      content: written.content,
      totalWords: written.totalWords,
      providerModel,
      promptTokens: written.usage.promptTokens + (imageOutcome?.usage.promptTokens ?? 0),
      completionTokens: written.usage.completionTokens + (imageOutcome?.usage.completionTokens ?? 0),
      generatedAt: deps.clock().toISOString(),
      seo: imageOutcome
        ? { ...written.seo, qualityWarnings: [...written.seo.qualityWarnings, ...imageOutcome.warnings] }
        : written.seo,
      ...(imageOutcome ? { images: imageOutcome.images, imageRefund: imageOutcome.refund } : {}),
    });
  } catch (error) {
    // Storage failed (or the worker is going down): hand the article back for the next delivery.
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    await retryLater(deps, delivery, article, leaseId, reason).catch(() => undefined);
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
  leaseId: string,
  reason: string,
): Promise<GenerationAttemptResult> {
  const retryInSeconds = generationRetryDelaySeconds(article.generationAttempts ?? 1, timingsOf(deps));
  const recheckAt = new Date(deps.clock().getTime() + retryInSeconds * 1000 + RETRY_DELIVERY_GRACE_MS);
  // The delivery first; if this fails, the sweeper re-sends after `recheckAt`. If storage is
  // down, the lease below cannot be given back: this throws, and the worker asks the delivery
  // back once the lease ran out (`storageFailureRetryDelaySeconds`), else it would come back
  // a duplicate of its own lease and be deleted.
  await delivery.retryAfter(retryInSeconds).catch(() => undefined);
  await deps.articles.releaseLease(article, leaseId, reason, recheckAt.toISOString());
  return { outcome: 'retry_scheduled', article, failure: reason, retryInSeconds };
}

/** Fails the article with a refund: as the holder of `leaseId`, or (without) once its attempts are used up. */
async function failForGood(
  deps: GenerateArticleDeps,
  article: Article,
  reason: string,
  leaseId?: string,
  sources?: SourceReport[],
): Promise<GenerationAttemptResult> {
  const failed = await deps.articles.failGeneration(
    article,
    reason,
    deps.clock().toISOString(),
    leaseId,
    sources,
  );
  // Images an earlier attempt stored go with the failed article (its credits came back whole).
  if (failed && deps.images) await deps.images.store.delete(imageKeysOf(article)).catch(() => undefined);
  return failed ? { outcome: 'failed', article, failure: reason } : { outcome: 'skipped', article };
}

/** The attempt's lease and retry delays: the deployed ones unless the worker's configuration set others. */
function timingsOf(deps: GenerateArticleDeps): GenerationTimings {
  return deps.timings ?? GENERATION_TIMINGS;
}

function leaseUntil(deps: GenerateArticleDeps, now: Date): string {
  return new Date(now.getTime() + timingsOf(deps).leaseMs).toISOString();
}

/**
 * Renews lease `leaseId` every third of the lease (`LEASE_RENEW_MS` deployed) until stopped. A
 * refused renewal (the lease was taken over, or the article moved on) aborts the attempt with a
 * LeaseLostError; renewals that fail until the lease could run out before the next one abort it
 * with a LeaseRenewalError.
 */
function keepLease(
  deps: GenerateArticleDeps,
  article: Article,
  leaseId: string,
  attempt: AbortController,
): () => void {
  const renewMs = timingsOf(deps).leaseMs / 3;
  let heldUntil = Date.parse(article.leaseExpiresAt ?? leaseUntil(deps, deps.clock()));
  const timer = setInterval(() => {
    const until = leaseUntil(deps, deps.clock());
    deps.articles.renewLease(article, leaseId, until).then(
      (held) => {
        if (held) heldUntil = Date.parse(until);
        else attempt.abort(new LeaseLostError());
      },
      () => {
        if (deps.clock().getTime() + renewMs >= heldUntil) attempt.abort(new LeaseRenewalError());
      },
    );
  }, renewMs);
  return () => clearInterval(timer);
}

/**
 * The attempt's result. Once the budget is spent the attempt is aborted with an
 * AttemptTimeoutError (the model's call in flight with it); an abort for any reason ends the
 * wait at once, even for a model that would not stop.
 */
function withinBudget<T>(work: Promise<T>, attempt: AbortController): Promise<T> {
  const timer = setTimeout(() => attempt.abort(new AttemptTimeoutError()), ATTEMPT_BUDGET_MS);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(attempt.signal.reason);
    if (attempt.signal.aborted) onAbort();
    else attempt.signal.addEventListener('abort', onAbort, { once: true });
  });
  work.catch(() => undefined);
  return Promise.race([work, aborted]).finally(() => {
    clearTimeout(timer);
    if (onAbort) attempt.signal.removeEventListener('abort', onAbort);
  });
}
