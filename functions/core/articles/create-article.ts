/** Queue a new article: validate, price, reserve credits and a daily slot, send to generation. */
import { randomUUID } from 'node:crypto';
import type { AccountStore } from '../accounts';
import { UnauthenticatedError, ValidationError } from '../errors';
import { priceOf } from '../pricing';
import { slugify } from '../slug';
import { type SourcePolicy, sourceOptions } from '../sources/source-policy';
import type { SiteIndexStore } from '../websites/ports';
import type { ArticleProfile } from '../websites/site-profile';
import type { Article, ArticleRequest } from './article';
import { imageRequestOf } from './article-image-input';
import { focusKeywordOf } from './article-seo';
import type { CreateArticleInput } from './create-article-input';
import { sendForGeneration } from './generation-messages';
import { linksRequested } from './internal-links-input';
import type {
  ArticleReservations,
  CategoryLookup,
  Clock,
  GenerationDispatch,
  GenerationQueue,
  WebsiteLookup,
} from './ports';
import { reservationAt } from './reservation-policy';
import { refuseSameTopic } from './same-topic';

export interface CreateArticleDeps {
  articles: Pick<ArticleReservations, 'createWithReservation'> & GenerationDispatch;
  accounts: AccountStore;
  websites: WebsiteLookup;
  categories: CategoryLookup;
  /** The websites' site indexes, for the topic check (same-topic.ts); without it there is none. */
  siteIndex?: Pick<SiteIndexStore, 'getState' | 'list'>;
  queue: GenerationQueue;
  clock: Clock;
  /** What sources may be (see `sourceOptions`); without it, https sources and no web search. */
  sourcePolicy?: SourcePolicy;
  /** Called when the message could not be sent; the next sweep sends it. */
  onEnqueueFailure?: (error: unknown, article: Article) => void;
  /** Plain-http image URLs allowed (local mode and tests, with private addresses). */
  allowPlainHttpImages?: boolean;
}

/**
 * `keyed`, when given (derived from an Idempotency-Key), makes a repeated create find the article
 * the first one stored instead of reserving a second time; a different request under the same
 * key is refused (IdempotencyKeyReusedError), even when the first one's response was lost.
 */
export async function createArticle(
  deps: CreateArticleDeps,
  accountId: string,
  input: CreateArticleInput,
  keyed?: { articleUuid: string; requestHash: string },
  /** What the article keeps of its website's profile (create-article-request.ts). */
  profile?: ArticleProfile,
): Promise<Article> {
  const request = await resolveRequest(deps, accountId, input);
  const account = await deps.accounts.get(accountId);
  if (!account) throw new UnauthenticatedError();

  const now = deps.clock();
  const article = newArticle(request, {
    accountId,
    articleUuid: keyed?.articleUuid ?? randomUUID(),
    now,
    ...(keyed ? { requestHash: keyed.requestHash } : {}),
    ...(profile ? { profile } : {}),
  });
  const outcome = await deps.articles.createWithReservation(
    article,
    reservationAt(now, article.estimatedCredits, account.dailyLimit),
  );
  if (outcome === 'reserved') {
    // The reservation stands either way; an unsent message is sent by the next sweep.
    await sendForGeneration(deps, article, now, (error) => deps.onEnqueueFailure?.(error, article));
  }
  return { ...article, state: outcome === 'reserved' ? 'queued' : outcome };
}

/** A new article (a create's, or a batch item's), priced, before its reservation. */
export function newArticle(
  request: ArticleRequest,
  at: { accountId: string; articleUuid: string; now: Date; requestHash?: string; profile?: ArticleProfile },
): Article {
  return {
    ...request,
    accountId: at.accountId,
    articleUuid: at.articleUuid,
    ...(at.requestHash !== undefined ? { requestHash: at.requestHash } : {}),
    state: 'queued',
    createdAt: at.now.toISOString(),
    estimatedCredits: priceOf(request),
    creditsCharged: 0,
    ...(request.websiteUuid && request.title ? { slug: slugify(request.title) } : {}),
    ...(request.websiteUuid && at.profile ? { siteProfile: at.profile } : {}),
  };
}

/** Checks the website and category; drops the publishing options when no website is given. */
export async function resolveRequest(
  deps: Pick<
    CreateArticleDeps,
    'websites' | 'categories' | 'sourcePolicy' | 'siteIndex' | 'allowPlainHttpImages'
  >,
  accountId: string,
  input: CreateArticleInput,
): Promise<ArticleRequest> {
  const base = {
    keyword: input.keyword
      .split(',')
      .map((keyword) => keyword.trim())
      .join(', '),
    h2Count: input.h2_count,
    aiModel: input.ai_model,
    language: input.language,
    needBold: input.need_bold,
    ...(input.title ? { title: input.title } : {}),
    faqCount: input.faq_count ?? 0,
    tags: input.tags ?? [],
    autoTags: input.auto_tags ?? false,
    ...(input.outline_review ? { outlineReview: true } : {}),
    ...(input.meta_description ? { metaDescription: input.meta_description } : {}),
    ...sourceOptions(input, deps.sourcePolicy),
    ...imageRequestOf(input, { allowPlainHttp: deps.allowPlainHttpImages ?? false }),
  };
  const internalLinks = linksRequested(input);
  if (!input.website_uuid) return { ...base, draft: false };

  const website = await deps.websites.get(accountId, input.website_uuid);
  if (!website) throw ValidationError.forField('website_uuid', 'The selected website does not exist.');
  if (input.category_uuid) {
    const category = await deps.categories.get(website.websiteUuid, input.category_uuid);
    if (!category) {
      throw ValidationError.forField(
        'category_uuid',
        'The selected category does not belong to the website.',
      );
    }
  }
  if (deps.siteIndex && !input.allow_same_topic) {
    await refuseSameTopic(deps.siteIndex, website.websiteUuid, {
      focusKeyword: focusKeywordOf(base.keyword),
      ...(input.title ? { title: input.title } : {}),
    });
  }
  return {
    ...base,
    websiteUuid: website.websiteUuid,
    draft: input.draft,
    ...(internalLinks !== undefined ? { internalLinks } : {}),
    ...(input.allow_same_topic ? { allowSameTopic: true } : {}),
    ...(input.category_uuid ? { categoryUuid: input.category_uuid } : {}),
    ...(input.publish_at ? { publishAt: new Date(input.publish_at).toISOString() } : {}),
  };
}
