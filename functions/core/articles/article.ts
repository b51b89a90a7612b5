/** The article record: one item from creation, through generation, to publication. */
import type { AiModel } from '../pricing';
import type { SourceReport } from '../sources/article-sources';
import type { PublicationSite } from '../websites/cms-client';
import type { ArticleProfile } from '../websites/site-profile';
import type { ArticleImage } from './article-images';
import type { Outline, TokenUsage } from './article-model';
import type { ArticleSeo } from './article-seo';

/**
 * Generation state. `queued`: credits reserved, waiting for or in generation.
 * `not_enough_credits` / `daily_limit_reached`: deferred, nothing charged; the sweeper
 * re-attempts the reservation. `generated`: done. `error`: failed for good, refunded.
 * `cancelled`: cancelled by the client before generation started, refunded.
 * `outline_ready`: created with `outline_review`, charged, its outline waiting for the client's
 * approval (outline-review.ts); back to `queued` when approved, `cancelled` when cancelled or
 * expired.
 */
export type ArticleState =
  | 'queued'
  | 'not_enough_credits'
  | 'daily_limit_reached'
  | 'generated'
  | 'error'
  | 'cancelled'
  | 'outline_ready';

/**
 * Publication to the linked website. `pending`: not yet on the site (first try or retrying).
 * `failed`: the site rejected it for good, or it kept failing; `retry` starts it again.
 */
export type PublishState = 'pending' | 'published' | 'failed';

export interface ArticleRequest {
  keyword: string;
  h2Count: number;
  aiModel: AiModel;
  language: string;
  title?: string;
  needBold: boolean;
  websiteUuid?: string;
  categoryUuid?: string;
  /** ISO time; only with a website. */
  publishAt?: string;
  draft: boolean;
  // Generation options; absent on articles created before they existed.
  /** Question-answer pairs of the FAQ section (0: none). */
  faqCount?: number;
  /** Tags the client gave. */
  tags?: string[];
  /** Whether the model proposes up to 5 more tags. */
  autoTags?: boolean;
  /** Meta description the client gave (otherwise generated). */
  metaDescription?: string;
  /** Voice, audience, facts and banned phrases of the website's profile, as they were at create. */
  siteProfile?: ArticleProfile;
  /** https URLs the client gave to write from (at most 10). */
  sources?: string[];
  /** `web`: a web search finds sources. */
  research?: 'none' | 'web';
  /** No source fetched fails the article (refunded) instead of writing it without. */
  requireSources?: boolean;
  /** Links to the website's own posts to place (internal-links.ts; 0 or absent: none). */
  internalLinks?: number;
  /** The client wants the article even though the site has a post on its topic (same-topic.ts). */
  allowSameTopic?: boolean;
  /** Generation stops after the outline until the client approves it (outline-review.ts). */
  outlineReview?: boolean;
  /** `generate` or the https URL of the client's image; absent: no featured image. */
  featuredImage?: string;
  /** Generated images placed after chosen H2 sections (0-3). */
  inlineImages?: number;
}

export interface Article extends ArticleRequest {
  accountId: string;
  articleUuid: string;
  state: ArticleState;
  createdAt: string;
  /** The batch the article was created in (batch.ts), if any. */
  batchUuid?: string;
  /** Hash of the create request that named this article with an Idempotency-Key (copies must match). */
  requestHash?: string;
  /** Price at creation. */
  estimatedCredits: number;
  /** Credits held for this article now (0 when deferred or refunded). */
  creditsCharged: number;
  /** When generation starts (or was deferred to). */
  startGenerationAt?: string;

  // Generation results
  generatedTitle?: string;
  content?: string;
  totalWords?: number;
  generatedAt?: string;
  /** Model name the provider was asked for, and the tokens it reported. */
  providerModel?: string;
  promptTokens?: number;
  completionTokens?: number;
  /** Number in the account's queue, taken at creation (order of creation; leaving it leaves a hole). */
  queueSeq?: number;
  /** Position in the account's generated list (1..n, dense). */
  generatedSeq?: number;
  /** Last generation failure, for the operator. */
  lastError?: string;
  /** Each source and why it failed, on an article failed for want of its required sources. */
  failedSources?: SourceReport[];
  /** Generation attempts started (each one a worker taking the lease). */
  generationAttempts?: number;
  /** The worker holding the article, and until when (ISO); absent when nobody works on it. */
  leaseOwner?: string;
  leaseExpiresAt?: string;
  /** Times the sweeper re-sent the generation message (lost message or expired lease). */
  resends?: number;
  /** Meta description, excerpt, focus keyword, FAQ, tags and quality warnings. */
  seo?: ArticleSeo;
  /** Outline review: the outline (the model's while `outline_ready`, then the approved one). */
  outline?: Outline;
  outlineApproved?: boolean;
  /** When an outline not approved is cancelled and refunded (ISO), while `outline_ready`. */
  outlineExpiresAt?: string;
  /** Tokens the outline took, added to the article's when it is generated. */
  outlineUsage?: TokenUsage;
  /** Why it was cancelled when the client did not (`outline_expired`). */
  cancelReason?: string;
  /** The images stored for the article (featured first); those that could not be had are absent. */
  images?: ArticleImage[];
  /** Credits given back at completion for images that could not be had. */
  imageCreditsRefunded?: number;

  // Publication
  slug?: string;
  publishState?: PublishState;
  publishAttempts?: number;
  /** Last publication failure (the site's own message where there is one). */
  publishError?: string;
  /**
   * The site login of an attempt that may have created the post without our knowing (see
   * `PublicationRetry.uncertainLogin`): the plugin finds a post only for the user who made it.
   */
  publishUncertainLogin?: string;
  /** When the next publication attempt is due (ISO), while pending. */
  publishRetryAt?: string;
  cmsId?: string;
  cmsPermalink?: string;
  publishedAt?: string;
  /** What the site kept of the post, as the plugin read it back. */
  publicationSite?: PublicationSite;
  /** Tries to read a scheduled post back after its time (`confirm-scheduled.ts`), once any was made. */
  scheduleChecks?: number;
  /** The last read, after the post's time, still showed it scheduled, and reads go on. */
  scheduleStillFuture?: boolean;
}
