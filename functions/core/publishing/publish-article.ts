/**
 * Publishing a generated article to its website through the plugin, exactly once: the plugin
 * creates one post per article uuid, so a retry after any failure (ours, the network's or the
 * site's) finds the post made earlier instead of making a second one. A failure never touches
 * the article's generation or credits: it flags the website and schedules a retry with backoff.
 */
import type { Article } from '../articles/article';
import { DUE_SLACK_MS, MAX_PUBLISH_ATTEMPTS, publishRetryDelayMs } from '../articles/lifecycle-policy';
import type { ArticleReads, Clock } from '../articles/ports';
import { readableSlug } from '../slug';
import { siteHostOf } from '../sources/citations';
import { checkExternalLinks } from '../sources/external-link-check';
import type { LinkChecker } from '../sources/ports';
import {
  type CmsClient,
  CmsError,
  CmsNotSentError,
  type CmsPost,
  type CmsPostResult,
  isSiteOwnCode,
} from '../websites/cms-client';
import type { PasswordCipher } from '../websites/password-cipher';
import type { CategoryStore, SiteIndexStore, WebsiteStore } from '../websites/ports';
import { siteAccessOf } from '../websites/site-access';
import { healthAfterFailure } from '../websites/site-failures';
import type { Website } from '../websites/website';
import { firstCheckAt } from './confirm-scheduled';
import { joinSiteIndex } from './join-site-index';
import type { ArticleRef, PublicationSweeps, Publications } from './ports';
import { markImagesPublished, type PostImageStore, postImagesOf } from './post-images';
import { postStructure } from './post-structure';

/** What one publication attempt needs. */
export interface PublishArticleDeps {
  articles: Pick<ArticleReads, 'get'>;
  publications: Publications;
  websites: WebsiteStore;
  categories: CategoryStore;
  cipher: PasswordCipher;
  cms: CmsClient;
  /** The websites' site indexes: a post published live joins its website's at once. */
  siteIndex?: Pick<SiteIndexStore, 'getState' | 'add' | 'putState'>;
  clock: Clock;
  /** Checks the article's external links before it is sent (a dead link is dropped, its text kept). */
  links?: LinkChecker;
  /** The article's stored images, sent inside the post request. */
  images?: PostImageStore;
  /** Told about each failed attempt (the retry is already scheduled), e.g. to log it. */
  onFailure?: (ref: ArticleRef, reason: string, nextAttemptAt: string) => void;
  /** Told when a publication ends in `failed` (for the operator's metric and log). */
  onFinalFailure?: (ref: ArticleRef, reason: string) => void;
}

/** Publishing as the worker and the sweeper do it (the sweeper also lists what is due). */
export interface PublishDeps extends PublishArticleDeps {
  publications: Publications & Pick<PublicationSweeps, 'listDue'>;
}

export type PublishOutcome =
  /** The post exists on the site now (made by this call or found from an earlier one). */
  | 'published'
  /** Failed; the website is flagged and a retry is scheduled. */
  | 'retry_scheduled'
  /** Failed for good (permanent rejection or attempts used up): the publication is `failed`. */
  | 'failed'
  /** Nothing to do: not generated, not linked to a website, already published or failed. */
  | 'skipped'
  /** The website was deleted: the article stays, its publication `failed`. */
  | 'website_gone';

/**
 * The plugin will answer the same whatever we do: it rejected the post itself (its 400/422, or
 * WordPress's validation of its route). Any other 4xx is retried: a refused login (credentials
 * can be fixed), 408 and 429 (try later), a missing plugin (a 404 while it is deactivated, e.g.
 * during its update), and an answer that is not the plugin's at all (an HTML 404 or 410 of a
 * proxy, a firewall or a site moving: it may be gone at the next attempt, and an earlier attempt
 * whose answer was lost may have made the post, which the next attempt then finds).
 */
export function isPermanentRejection(error: unknown): boolean {
  return error instanceof CmsError && error.reason === 'invalid_request';
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

export async function publishArticle(deps: PublishArticleDeps, ref: ArticleRef): Promise<PublishOutcome> {
  const article = await deps.articles.get(ref.accountId, ref.articleUuid);
  if (article?.state !== 'generated' || !article.websiteUuid) return 'skipped';
  if (article.publishState === 'published' || article.publishState === 'failed') return 'skipped';

  const website = await deps.websites.get(article.accountId, article.websiteUuid);
  if (!website) {
    const reason =
      article.publishUncertainLogin === undefined
        ? 'The website was deleted before the article was published.'
        : `The website was deleted before the article was published; an earlier attempt's outcome is unknown, so the post may be on the site already (made by ${article.publishUncertainLogin}).`;
    await deps.publications.markFailed(ref, {
      attempts: article.publishAttempts ?? 0,
      lastError: reason,
      failedAt: deps.clock().toISOString(),
    });
    return 'website_gone';
  }

  if (loginChangedSinceUncertainAttempt(article, website)) {
    // The plugin finds a post only for the site user who made it: publishing as another user
    // could make a second post. The client decides (a retry publishes as the new login).
    return failedAttempt(deps, ref, article, {
      reason: `The website's login changed after an attempt as ${article.publishUncertainLogin} whose outcome is unknown: the post may be on the site already, by that user. Check the site, then retry the article to publish it as ${website.login}.`,
      permanent: true,
      // Said now: a retry is the client's decision to publish as the new login.
      uncertainLogin: null,
    });
  }

  if (website.loginIsUnauthorized) {
    // Logging in again with a login the site refused would only feed the plugin's login throttle,
    // which then locks out the corrected credentials too: the attempt counts, the site is not
    // called. Updating the credentials (or a health check that logs in again) clears the flag.
    return failedAttempt(deps, ref, article, {
      reason: 'The site refused the stored login; not tried again until the website gets new credentials.',
      permanent: false,
    });
  }

  const attempt = { sent: false };
  try {
    const result = await send(deps, article, website, attempt);
    const publishedAt = publishedAtOf(result, deps.clock());
    const confirmAt = firstCheckAt(result.status, publishedAt);
    await deps.publications.markPublished(ref, {
      cmsId: result.cmsId,
      cmsPermalink: result.permalink,
      ...(publishedAt ? { publishedAt } : {}),
      ...(confirmAt ? { confirmAt } : {}),
      ...(result.slug ? { slug: readableSlug(result.slug) } : {}),
      ...(result.site ? { site: result.site } : {}),
    });
    if (deps.siteIndex && result.status === 'publish') {
      await joinSiteIndex(deps.siteIndex, article, website, result, deps.clock());
    }
    // The site has the images now: the stored copies start their expiry (a failure only delays it).
    await markImagesPublished(deps.images, article, deps.clock().toISOString()).catch(() => undefined);
    // The site took the post: it is reachable, whatever another call flagged meanwhile (a flag set
    // during this attempt is not in `website`). The login flag is never set here (an attempt with
    // a refused login does not call the site) and one set meanwhile stays: the password may have
    // changed since this attempt logged in.
    await deps.websites.recordHealth(website.accountId, website.websiteUuid, { isUnreachable: false });
    return 'published';
  } catch (error) {
    if (error instanceof CmsError) {
      const health = healthAfterFailure(error);
      if (Object.keys(health).length > 0) {
        await deps.websites.recordHealth(website.accountId, website.websiteUuid, health);
      }
    }
    return failedAttempt(deps, ref, article, {
      reason: failureText(error),
      permanent: isPermanentRejection(error),
      // A login the plugin paused (429) is paused for its Retry-After: trying sooner only spends attempts.
      notForMs: error instanceof CmsError ? (error.retryAfterSeconds ?? 0) * 1000 : 0,
      ...uncertaintyAfter(article, website, attempt.sent, error),
    });
  }
}

/**
 * Whether a failed post request may have created the post all the same: anything but a 4xx given
 * before WordPress made the post (the plugin's refusal, a proxy's 404, a host's 429, ...), the
 * plugin's failed insert, or a request that never left. A 403/406/451 page without the plugin's
 * or WordPress's code may come from a firewall that looked at the site's answer, after the post
 * was made.
 */
export function mayHaveCreatedPost(error: unknown): boolean {
  if (error instanceof CmsNotSentError) return false;
  if (!(error instanceof CmsError)) return true;
  const status = error.httpStatus;
  if (status !== undefined && status >= 400 && status < 500) {
    return FIREWALL_ANSWERS.has(status) && !isSiteOwnCode(error.code);
  }
  return error.code !== 'inkpress_insert_failed';
}

/** Statuses a firewall that inspects answers gives in place of the site's. */
const FIREWALL_ANSWERS = new Set([403, 406, 451]);

/**
 * What a failed attempt leaves of the uncertain login: this attempt's login when it may have
 * created the post; nothing changed when an earlier attempt's stands; forgotten when only this
 * attempt's mark (`markAttempting`) was there and the site surely made nothing.
 */
function uncertaintyAfter(
  article: Article,
  website: Website,
  sent: boolean,
  error: unknown,
): { uncertainLogin?: string | null } {
  if (!sent) return {};
  if (mayHaveCreatedPost(error)) return { uncertainLogin: website.login };
  return article.publishUncertainLogin === undefined ? { uncertainLogin: null } : {};
}

/** WordPress user names are case-insensitive. */
function loginChangedSinceUncertainAttempt(article: Article, website: Website): boolean {
  const uncertain = article.publishUncertainLogin;
  return uncertain !== undefined && uncertain.toLowerCase() !== website.login.toLowerCase();
}

/** The longest Retry-After a site gets honoured (the plugin pauses a login for 15 minutes). */
const MAX_SITE_PAUSE_MS = 60 * 60_000;

/**
 * Counts a failed attempt: the publication fails for good, or comes back after the backoff (or
 * the site's Retry-After, when longer).
 */
async function failedAttempt(
  deps: PublishArticleDeps,
  ref: ArticleRef,
  article: Article,
  failure: { reason: string; permanent: boolean; uncertainLogin?: string | null; notForMs?: number },
): Promise<PublishOutcome> {
  const attempts = (article.publishAttempts ?? 0) + 1;
  const { reason, uncertainLogin } = failure;
  if (failure.permanent || attempts >= MAX_PUBLISH_ATTEMPTS) {
    const failed = await deps.publications.markFailed(ref, {
      attempts,
      lastError: reason,
      failedAt: deps.clock().toISOString(),
      uncertainLogin,
    });
    if (failed) deps.onFinalFailure?.(ref, reason);
    return failed ? 'failed' : 'skipped';
  }
  // A site's pause is waited out whole: the sweep takes a retry up to DUE_SLACK_MS before it is due.
  const pauseMs = Math.min(failure.notForMs ?? 0, MAX_SITE_PAUSE_MS);
  const waitMs = Math.max(publishRetryDelayMs(attempts), pauseMs > 0 ? pauseMs + DUE_SLACK_MS : 0);
  const nextAttemptAt = new Date(deps.clock().getTime() + waitMs).toISOString();
  await deps.publications.scheduleRetry(ref, {
    attempts,
    nextAttemptAt,
    lastError: reason,
    uncertainLogin,
  });
  deps.onFailure?.(ref, reason, nextAttemptAt);
  return 'retry_scheduled';
}

/** Sends the post; `attempt.sent` tells whether a post request was made (before that, nothing can have been created). */
async function send(
  deps: PublishArticleDeps,
  article: Article,
  website: Website,
  attempt: { sent: boolean },
): Promise<CmsPostResult> {
  const site = await siteAccessOf(deps, website);
  const category = article.categoryUuid
    ? await deps.categories.get(website.websiteUuid, article.categoryUuid)
    : undefined;
  const links = deps.links
    ? await checkExternalLinks(article.content ?? '', siteHostOf(website.url), deps.links)
    : undefined;
  const images = await postImagesOf(deps.images, article);
  const post = {
    ...postFor(links ? { ...article, content: links.html } : article, deps.clock(), category?.cmsId),
    ...(images.length > 0 ? { images } : {}),
  };
  // Kept until the outcome is known, so that a crash (or a store failure) after the request went
  // out leaves the login it went out with: a login change then fails instead of posting again.
  if (article.publishUncertainLogin === undefined) {
    await deps.publications.markAttempting(article, website.login);
  }
  attempt.sent = true;
  const withLinkCounts = (result: CmsPostResult): CmsPostResult =>
    links && result.site
      ? {
          ...result,
          site: { ...result.site, externalLinksKept: links.kept, externalLinksDropped: links.dropped },
        }
      : result;
  try {
    return withLinkCounts(await deps.cms.createPost(site, post));
  } catch (error) {
    // The category was removed on the site since the last refresh: publish without it.
    if (error instanceof CmsError && error.code === 'inkpress_unknown_category' && post.categoryCmsId) {
      const { categoryCmsId: _dropped, ...withoutCategory } = post;
      return withLinkCounts(await deps.cms.createPost(site, withoutCategory));
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

function failureText(error: unknown): string {
  if (error instanceof CmsError) return `${error.reason}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
}
