/**
 * The article's state rules, defined once for every store (DynamoDB and the in-memory fakes):
 * which moves are allowed from which state, what a refund gives back, what a deferral waits
 * for, and what a refused lease means. Stores apply them under their own conditions, so a
 * concurrent change between the read and the write is never overwritten.
 */
import { IdempotencyKeyReusedError } from '../errors';
import { slugify } from '../slug';
import type { Article } from './article';
import { MAX_GENERATION_ATTEMPTS, PUBLISH_GRACE_MS } from './lifecycle-policy';
import type {
  DeferredState,
  GenerationResult,
  LeaseOutcome,
  ReservableState,
  Reservation,
  ReservationOutcome,
} from './ports';

/** States a sweep's reservation attempt starts from (a client's retry also starts from `error`). */
export const DEFERRED_STATES: ReservableState[] = ['not_enough_credits', 'daily_limit_reached'];

/** Longest failure text kept on an article (generation or publication), for the operator. */
export const MAX_ERROR_LENGTH = 500;

export function errorText(reason: string): string {
  return reason.slice(0, MAX_ERROR_LENGTH);
}

export function isDeferred(article: Pick<Article, 'state'>): article is { state: DeferredState } {
  return article.state === 'not_enough_credits' || article.state === 'daily_limit_reached';
}

/**
 * Generation has not started (deferred, or queued with no attempt taken and no lease), or it
 * stopped after the outline for the client's approval (`outline_ready`).
 */
export function canCancel(article: Article): boolean {
  // An outline waiting for approval: generation stopped, nothing more will be written unless approved.
  if (isDeferred(article) || article.state === 'outline_ready') return true;
  return article.state === 'queued' && !article.leaseOwner && (article.generationAttempts ?? 0) === 0;
}

/**
 * Only a queued article can fail (a generated, failed or cancelled one is final already): by
 * the worker holding lease `leaseId`, or, without one, once its attempts are used up and no
 * lease is live at `now` (its last worker died).
 */
export function canFailGeneration(
  article: Pick<Article, 'state' | 'leaseOwner' | 'leaseExpiresAt' | 'generationAttempts'>,
  now: string,
  leaseId?: string,
): boolean {
  if (article.state !== 'queued') return false;
  if (leaseId !== undefined) return article.leaseOwner === leaseId;
  return attemptsUsedUp(article) && !hasLiveLease(article, now);
}

/** Every generation attempt was taken. */
export function attemptsUsedUp(article: Pick<Article, 'generationAttempts'>): boolean {
  return (article.generationAttempts ?? 0) >= MAX_GENERATION_ATTEMPTS;
}

function hasLiveLease(article: Pick<Article, 'leaseExpiresAt'>, now: string): boolean {
  return article.leaseExpiresAt !== undefined && article.leaseExpiresAt >= now;
}

/** What a final failure or a cancel gives back: everything the article holds, once. */
export function refundOf(article: Pick<Article, 'creditsCharged'>): number {
  return article.creditsCharged;
}

/** The article as stored once its reservation succeeded. */
export function reservedArticle(article: Article, reservation: Reservation): Article {
  return {
    ...article,
    state: 'queued',
    creditsCharged: reservation.price,
    startGenerationAt: reservation.now,
    generationAttempts: 0,
  };
}

/**
 * An article that could not be reserved waits: for credits (re-tried at `retryCreditsAt`, or
 * when credits are added) or for the next UTC day (when generation then starts).
 */
export function deferral(
  state: DeferredState,
  reservation: Reservation,
): { retryAt: string; startGenerationAt?: string } {
  return state === 'daily_limit_reached'
    ? { retryAt: reservation.retryDailyLimitAt, startGenerationAt: reservation.retryDailyLimitAt }
    : { retryAt: reservation.retryCreditsAt };
}

/** The article as stored when its reservation was refused: nothing charged. */
export function deferredArticle(article: Article, state: DeferredState, reservation: Reservation): Article {
  const { startGenerationAt } = deferral(state, reservation);
  return { ...article, state, creditsCharged: 0, ...(startGenerationAt ? { startGenerationAt } : {}) };
}

/**
 * What an earlier try of the same create (same article uuid) left behind. A create under the same
 * Idempotency-Key with a different request finds the first one's article and is refused.
 */
export function outcomeOfStored(stored: Article | undefined, article: Article): ReservationOutcome {
  if (!stored) throw new Error(`Article ${article.articleUuid} could not be stored`);
  // Articles stored before hashes were kept have none (their keys expired 24 h later).
  if (stored.requestHash !== undefined && stored.requestHash !== article.requestHash) {
    throw new IdempotencyKeyReusedError();
  }
  return isDeferred(stored) ? stored.state : 'reserved';
}

/** Whether a new lease may be taken now: queued, no live lease, attempts left. */
export function canTakeLease(article: Article, now: string, maxAttempts: number): boolean {
  return (
    article.state === 'queued' &&
    !hasLiveLease(article, now) &&
    (article.generationAttempts ?? 0) < maxAttempts
  );
}

/**
 * Why a lease was refused, from the article as it is now. Only used-up attempts make it
 * `exhausted`: an article with attempts left and no live lease was given back by its holder
 * between the refusal and this read (`released`), and must not be failed.
 */
export function leaseRefusal(
  current: Article | undefined,
  now: string,
  maxAttempts: number,
): Exclude<LeaseOutcome, { kind: 'leased' }> {
  if (current?.state !== 'queued')
    return current ? { kind: 'not_queued', article: current } : { kind: 'not_queued' };
  if (current.leaseExpiresAt !== undefined && current.leaseExpiresAt >= now) {
    return { kind: 'busy', leaseExpiresAt: current.leaseExpiresAt };
  }
  if ((current.generationAttempts ?? 0) < maxAttempts) return { kind: 'released', article: current };
  return { kind: 'exhausted', article: current };
}

/**
 * What completion adds to the article besides the result: the slug (kept if the client's title
 * gave one) and, with a website, a pending publication whose first sweep check waits for the
 * worker's own attempt.
 */
export function completion(
  article: Pick<Article, 'websiteUuid' | 'slug'>,
  result: GenerationResult,
): { slug?: string; publishCheckAt?: string } {
  if (article.websiteUuid === undefined) return {};
  return {
    slug: article.slug ?? slugify(result.title),
    publishCheckAt: new Date(Date.parse(result.generatedAt) + PUBLISH_GRACE_MS).toISOString(),
  };
}
