/** Article records on the wire (docs/api-contract.md "Article record" and "Queued article record"). */

import type { SourceReport } from '../sources/article-sources';
import { escapeHtml } from '../text';
import type { PublicationSite } from '../websites/cms-client';
import { type Category, presentCategory, type Website, websiteData } from '../websites/website';
import { toBit, toWireTime } from '../wire';
import type { Article, ArticleState } from './article';
import { focusKeywordOf } from './article-seo';
import { presentImageRequest, presentImages } from './image-presenter';

export interface Linked {
  website?: Website;
  category?: Category;
  /** URL of each stored image by slot (image-presenter.ts). */
  imageUrls?: Record<string, string>;
}

/** Outer status of `show` for an article not generated yet. */
const showStatus: Record<Exclude<ArticleState, 'generated'>, string> = {
  queued: 'in_progress',
  not_enough_credits: 'not_enough_credits',
  daily_limit_reached: 'daily_limit_reached',
  error: 'error',
  cancelled: 'cancelled',
  outline_ready: 'outline_ready',
};

/**
 * Where the article stands on its website: `waiting` (not on the site yet: not generated, or
 * its publication is being tried), `scheduled` (on the site, live at `publish_at`; after that
 * time too while the site, read back after it, still shows the post scheduled),
 * `published` (on the site, live or as a draft), `failed` (given up; `retry` starts again).
 * None for an article without a website, or cancelled (nothing of it will be published).
 */
export type PublicationState = 'waiting' | 'scheduled' | 'published' | 'failed';

export function presentPublication(article: Article, now: Date = new Date()) {
  if (article.websiteUuid === undefined || article.state === 'cancelled') return null;
  let state: PublicationState = 'waiting';
  if (article.publishState === 'failed') state = 'failed';
  else if (article.publishState === 'published') {
    const liveAt = article.publishedAt ? Date.parse(article.publishedAt) : Number.NaN;
    // After its time too while the site, read back after it, still shows it scheduled; never when
    // the site has it live (WordPress publishes at once a post due within a minute).
    const liveOnSite = article.publicationSite?.status === 'publish';
    const scheduled = !liveOnSite && (liveAt > now.getTime() || article.scheduleStillFuture === true);
    state = !article.draft && scheduled ? 'scheduled' : 'published';
  }
  return {
    state,
    attempts: article.publishAttempts ?? 0,
    last_error: article.publishError ?? null,
    next_attempt_at: state === 'waiting' ? toWireTime(article.publishRetryAt) : null,
    site: presentSite(article.publicationSite),
  };
}

/** 1 when the article is (to be) published live on its website, 0 for drafts and unlinked articles. */
function publishBit(article: Article): 0 | 1 {
  return toBit(article.websiteUuid !== undefined && !article.draft);
}

function linkedObjects(linked: Linked) {
  return {
    website: linked.website ? websiteData(linked.website) : null,
    category: linked.category ? presentCategory(linked.category) : null,
  };
}

/**
 * The internal links the site dropped when it wrote the post (a target no longer published),
 * as the plugin's read-back names them (plugin 1.5.2+; none before, or before publication).
 */
function droppedOnSite(article: Article): Set<string> {
  return new Set(article.publicationSite?.internalLinksDroppedUrls ?? []);
}

/**
 * The article's content as it stands on its site: the internal links the site dropped are
 * unwrapped (their text kept), as the plugin did. The stored content keeps them: a later
 * publication sends them again and the site checks them again.
 */
function contentOnSite(content: string, dropped: Set<string>): string {
  let out = content;
  for (const url of dropped) {
    const href = escapeHtml(url).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`<a href="${href}">([^<]*)</a>`, 'g'), '$1');
  }
  return out;
}

/** SEO fields of a generated article (articles generated before they existed get empty ones). */
function seoFields(article: Article) {
  const seo = article.seo;
  const dropped = droppedOnSite(article);
  return {
    meta_description: seo?.metaDescription ?? null,
    excerpt: seo?.excerpt ?? null,
    focus_keyword: seo?.focusKeyword ?? focusKeywordOf(article.keyword),
    faq: seo?.faq ?? [],
    tags: seo?.tags ?? [],
    // Once published, the links on the site: those it dropped are left out (as from `content`).
    internal_links: (seo?.internalLinks ?? [])
      .filter((link) => !dropped.has(link.url))
      .map(({ url, postId, anchor }) => ({
        url,
        post_id: postId,
        anchor,
      })),
    quality_warnings: seo?.qualityWarnings ?? [],
    sources: (seo?.sources ?? (article.sources ?? []).map(notFetchedYet)).map(presentSource),
    external_links_removed: seo?.externalLinksRemoved ?? 0,
  };
}

/** A source of an article not generated yet. */
function notFetchedYet(url: string): SourceReport {
  return { url, title: null, used: false, error: null };
}

function presentSource(source: SourceReport) {
  return { url: source.url, title: source.title, used: toBit(source.used), error: source.error };
}

/** What the site kept of the post; null until published (or from a plugin without read-back). */
function presentSite(site: PublicationSite | undefined) {
  if (!site) return null;
  return {
    post_id: site.postId,
    link: site.link,
    status: site.status,
    blocks: site.blocks,
    freeform_blocks: site.freeformBlocks,
    tags: site.tags,
    excerpt: toBit(site.excerpt),
    seo: {
      adapter: site.seoAdapter,
      meta_description: toBit(site.metaDescription),
      focus_keyword: toBit(site.focusKeyword),
      title: toBit(site.seoTitle),
    },
    schema: { printed_by: site.schemaBy, types: site.schemaTypes },
    faq_questions: site.faqQuestions,
    external_links_kept: site.externalLinksKept ?? 0,
    external_links_dropped: site.externalLinksDropped ?? 0,
    internal_links_kept: site.internalLinksKept ?? 0,
    internal_links_dropped: site.internalLinksDropped ?? 0,
    featured_media_id: site.featuredMediaId ?? null,
    images_uploaded: site.imagesUploaded ?? 0,
  };
}

export function presentGeneratedArticle(article: Article, linked: Linked) {
  const onWebsite = article.websiteUuid !== undefined;
  return {
    data: {
      uuid: article.articleUuid,
      title: article.generatedTitle ?? article.title ?? '',
      content: contentOnSite(article.content ?? '', droppedOnSite(article)),
      language: article.language,
      slug: onWebsite ? (article.slug ?? null) : null,
      status: publishBit(article),
      cms_id: onWebsite ? (article.cmsId ?? null) : null,
      cms_permalink: onWebsite ? (article.cmsPermalink ?? null) : null,
      credits_used: article.creditsCharged,
      ai_model: article.aiModel,
      total_words: article.totalWords ?? 0,
      created_at: toWireTime(article.createdAt),
      published_at: onWebsite ? toWireTime(article.publishedAt) : null,
      publish_at: onWebsite ? toWireTime(article.publishAt) : null,
      ...seoFields(article),
      ...presentImages(article, linked.imageUrls),
      ...linkedObjects(linked),
      publication: presentPublication(article),
    },
    status: 'generated',
  };
}

export function presentQueuedArticle(article: Article, linked: Linked, outerStatus: string) {
  return {
    data: {
      uuid: article.articleUuid,
      keyword: article.keyword,
      title: article.title ?? null,
      language: article.language,
      slug: article.websiteUuid !== undefined ? (article.slug ?? null) : null,
      status: publishBit(article),
      h2_count: article.h2Count,
      need_bold: toBit(article.needBold),
      estimated_credits: article.estimatedCredits,
      not_enough_credits: toBit(article.state === 'not_enough_credits'),
      generation_error: toBit(article.state === 'error'),
      daily_limit_reached: toBit(article.state === 'daily_limit_reached'),
      // A cancelled article's generation never starts.
      start_generation_at: article.state === 'cancelled' ? null : toWireTime(article.startGenerationAt),
      publish_at: article.websiteUuid !== undefined ? toWireTime(article.publishAt) : null,
      faq_count: article.faqCount ?? 0,
      tags: article.tags ?? [],
      auto_tags: toBit(article.autoTags),
      meta_description: article.metaDescription ?? null,
      // A failed article keeps why each source failed (require_sources).
      sources: (article.failedSources ?? (article.sources ?? []).map(notFetchedYet)).map(presentSource),
      research: article.research ?? 'none',
      require_sources: toBit(article.requireSources),
      ...outlineFields(article),
      ...presentImageRequest(article),
      ...linkedObjects(linked),
      publication: presentPublication(article),
    },
    status: outerStatus,
  };
}

/** Outline review: whether it was asked for, and the outline once written (outline-review.ts). */
function outlineFields(article: Article) {
  return {
    outline_review: toBit(article.outlineReview),
    outline: article.outline
      ? {
          title: article.outline.title,
          headings: article.outline.headings,
          approved: toBit(article.outlineApproved),
          expires_at: article.state === 'outline_ready' ? toWireTime(article.outlineExpiresAt) : null,
        }
      : null,
  };
}

/** The record `show` returns: generated, or queued with its generation status. */
export function presentArticle(article: Article, linked: Linked) {
  return article.state === 'generated'
    ? presentGeneratedArticle(article, linked)
    : presentQueuedArticle(article, linked, showStatus[article.state]);
}
