/**
 * Publishing a generated article to its website through the plugin, exactly once: the plugin
 * creates one post per article uuid, so a retry after any failure (ours, the network's or the
 * site's) finds the post made earlier instead of making a second one. A failure never touches
 * the article's generation or credits: it flags the website and schedules a retry with backoff.
 */
import type { Article } from '../articles/article';
import type { Clock } from '../articles/ports';
import { type CmsClient, CmsError, type CmsPost, type CmsPostResult } from '../websites/cms-client';
import type { PasswordCipher } from '../websites/password-cipher';
import type { CategoryStore, WebsiteStore } from '../websites/ports';
import { HEALTHY, healthAfterFailure } from '../websites/site-failures';
import type { Website } from '../websites/website';
import type { ArticleRef, PublicationStore } from './ports';
import { postStructure } from './post-structure';

export interface PublishDeps {
  articles: { get(accountId: string, articleUuid: string): Promise<Article | undefined> };
  publications: PublicationStore;
  websites: WebsiteStore;
  categories: CategoryStore;
  cipher: PasswordCipher;
  cms: CmsClient;
  clock: Clock;
  /** Told about each failed attempt (the retry is already scheduled), e.g. to log it. */
  onFailure?: (ref: ArticleRef, reason: string, nextAttemptAt: string) => void;
}

export type PublishOutcome =
  /** The post exists on the site now (made by this call or found from an earlier one). */
  | 'published'
  /** Failed; the website is flagged and a retry is scheduled. */
  | 'retry_scheduled'
  /** Nothing to do: not generated, not linked to a website, or already published. */
  | 'skipped'
  /** The website was deleted: the article stays, unpublished. */
  | 'website_gone';

const FIRST_RETRY_MS = 60_000;
const MAX_RETRY_MS = 30 * 60_000;

/** Delay before attempt `attempts + 1`: 1, 2, 4, ... minutes, at most 30. */
export function retryDelayMs(attempts: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
}

/** What the site is asked to do with an article: draft, scheduled (`future`) or live now. */
export function postFor(article: Article, now: Date, categoryCmsId?: string): CmsPost {
  const publishAt = article.publishAt ? new Date(article.publishAt) : undefined;
  const scheduled = publishAt !== undefined && publishAt.getTime() > now.getTime();
  return {
    articleUuid: article.articleUuid,
    title: article.generatedTitle ?? article.title ?? article.keyword,
    ...postStructure(article),
    status: article.draft ? 'draft' : scheduled ? 'future' : 'publish',
    ...(article.slug ? { slug: article.slug } : {}),
    ...(scheduled && publishAt ? { dateGmt: publishAt.toISOString() } : {}),
    ...(categoryCmsId ? { categoryCmsId } : {}),
  };
}

export async function publishArticle(deps: PublishDeps, ref: ArticleRef): Promise<PublishOutcome> {
  const article = await deps.articles.get(ref.accountId, ref.articleUuid);
  if (article?.state !== 'generated' || !article.websiteUuid) return 'skipped';
  if (article.publishState === 'published') return 'skipped';

  const website = await deps.websites.get(article.accountId, article.websiteUuid);
  if (!website) {
    await deps.publications.abandon(ref, 'The website was deleted before the article was published.');
    return 'website_gone';
  }

  try {
    const result = await send(deps, article, website);
    const publishedAt = publishedAtOf(result, deps.clock());
    await deps.publications.markPublished(ref, {
      cmsId: result.cmsId,
      cmsPermalink: result.permalink,
      ...(publishedAt ? { publishedAt } : {}),
      ...(result.slug ? { slug: readableSlug(result.slug) } : {}),
      ...(result.site ? { site: result.site } : {}),
    });
    if (website.loginIsUnauthorized || website.isUnreachable) {
      await deps.websites.recordHealth(website.accountId, website.websiteUuid, HEALTHY);
    }
    return 'published';
  } catch (error) {
    if (error instanceof CmsError) {
      const health = healthAfterFailure(error);
      if (Object.keys(health).length > 0) {
        await deps.websites.recordHealth(website.accountId, website.websiteUuid, health);
      }
    }
    const attempts = (article.publishAttempts ?? 0) + 1;
    const nextAttemptAt = new Date(deps.clock().getTime() + retryDelayMs(attempts)).toISOString();
    await deps.publications.scheduleRetry(ref, { attempts, nextAttemptAt, lastError: failureText(error) });
    deps.onFailure?.(ref, failureText(error), nextAttemptAt);
    return 'retry_scheduled';
  }
}

async function send(deps: PublishDeps, article: Article, website: Website): Promise<CmsPostResult> {
  const password = await deps.cipher.decrypt(website.passwordCiphertext, {
    accountId: website.accountId,
    websiteUuid: website.websiteUuid,
  });
  const site = { url: website.url, login: website.login, password };
  const category = article.categoryUuid
    ? await deps.categories.get(website.websiteUuid, article.categoryUuid)
    : undefined;
  const post = postFor(article, deps.clock(), category?.cmsId);
  try {
    return await deps.cms.createPost(site, post);
  } catch (error) {
    // The category was removed on the site since the last refresh: publish without it.
    if (error instanceof CmsError && error.code === 'inkpress_unknown_category' && post.categoryCmsId) {
      const { categoryCmsId: _dropped, ...withoutCategory } = post;
      return deps.cms.createPost(site, withoutCategory);
    }
    throw error;
  }
}

/** When the post is live: the site's date for published and scheduled posts; none for drafts. */
function publishedAtOf(result: CmsPostResult, now: Date): string | undefined {
  if (result.status === 'draft' || result.status === 'pending') return undefined;
  if (result.dateGmt) {
    const date = new Date(result.dateGmt);
    if (!Number.isNaN(date.getTime())) return date.toISOString();
  }
  return now.toISOString();
}

/** WordPress keeps non-ASCII slugs percent-encoded; clients get them as text. */
function readableSlug(slug: string): string {
  try {
    return decodeURIComponent(slug);
  } catch {
    return slug;
  }
}

function failureText(error: unknown): string {
  if (error instanceof CmsError) return `${error.reason}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
}
