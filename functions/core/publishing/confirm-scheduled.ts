/**
 * Scheduled posts read back after their time. WordPress makes a `future` post live from a WP-Cron
 * event, which some sites never run; a site nobody visits then keeps it `future`. The sweeper
 * reads each scheduled post once its time has passed (plugin 1.4 publishes a due post on that
 * read, as WP-Cron would have), records what the site shows (status, permalink, read-back) and
 * reads again later while the post is still `future`.
 */
import pLimit from 'p-limit';
import type { ArticleReads, Clock } from '../articles/ports';
import { readableSlug } from '../slug';
import { type CmsClient, CmsError } from '../websites/cms-client';
import type { PasswordCipher } from '../websites/password-cipher';
import type { WebsiteStore } from '../websites/ports';
import { siteAccessOf } from '../websites/site-access';
import type { ArticleRef, ScheduleConfirmations } from './ports';

/** After a post's time, the first read; then the waits before each next read while it is `future`. */
export const FIRST_CHECK_AFTER_MS = 60_000;
export const RECHECK_AFTER_MS = [5 * 60_000, 15 * 60_000, 60 * 60_000, 6 * 60 * 60_000] as const;
export const MAX_SCHEDULE_CHECKS = RECHECK_AFTER_MS.length + 1;
/** Reads per sweep (the rest wait for the next run), and calls to sites at once. */
export const CONFIRM_BATCH = 25;
const CONCURRENCY = 4;

export interface ConfirmScheduledDeps {
  articles: Pick<ArticleReads, 'get'>;
  publications: ScheduleConfirmations;
  websites: WebsiteStore;
  cipher: PasswordCipher;
  cms: CmsClient;
  clock: Clock;
}

export type ScheduleCheckOutcome =
  /** The site shows the post live (or as it stands, when it is no longer scheduled). */
  | 'live'
  /** Still `future` on the site (or not read now): read again later. */
  | 'still_scheduled'
  /** Nothing more to read: the article, its website or its post is gone, or the plugin predates reads. */
  | 'done'
  | 'errors';

/** When a published post of `article` is to be read back: its time plus a minute, for a scheduled post. */
export function firstCheckAt(status: string | null, publishedAt: string | undefined): string | undefined {
  if (status !== 'future' || !publishedAt) return undefined;
  return new Date(Date.parse(publishedAt) + FIRST_CHECK_AFTER_MS).toISOString();
}

export async function confirmScheduledPosts(
  deps: ConfirmScheduledDeps,
): Promise<Record<ScheduleCheckOutcome, number>> {
  const due = await deps.publications.listDueConfirmations(deps.clock().toISOString(), CONFIRM_BATCH);
  const counts: Record<ScheduleCheckOutcome, number> = { live: 0, still_scheduled: 0, done: 0, errors: 0 };
  const limit = pLimit(CONCURRENCY);
  await Promise.all(
    due.map((ref) =>
      limit(async () => {
        // A storage error leaves the read due: the next sweep tries again.
        counts[await confirmOne(deps, ref).catch(() => 'errors' as const)]++;
      }),
    ),
  );
  return counts;
}

async function confirmOne(deps: ConfirmScheduledDeps, ref: ArticleRef): Promise<ScheduleCheckOutcome> {
  const article = await deps.articles.get(ref.accountId, ref.articleUuid);
  const checks = (article?.scheduleChecks ?? 0) + 1;
  const leave = async () => {
    await deps.publications.recordScheduleCheck(ref, { checks });
    return 'done' as const;
  };
  if (article?.publishState !== 'published' || !article.websiteUuid) return leave();
  const website = await deps.websites.get(article.accountId, article.websiteUuid);
  if (!website) return leave();
  // A refused login is not tried again (the plugin's throttle would lock the new one out too).
  if (website.loginIsUnauthorized) return readLater(deps, ref, checks);

  let read: Awaited<ReturnType<CmsClient['readPost']>>;
  try {
    read = await deps.cms.readPost(await siteAccessOf(deps, website), article.articleUuid);
  } catch (error) {
    // A plugin before 1.4 has no such route: the post's state stays as the clock says.
    if (error instanceof CmsError && error.code === 'rest_no_route') return leave();
    if (error instanceof CmsError) return readLater(deps, ref, checks);
    throw error;
  }
  if (!read) return leave();
  const post = {
    cmsPermalink: read.permalink,
    ...(read.slug ? { slug: readableSlug(read.slug) } : {}),
    ...(read.site ? { site: { ...read.site, readAt: deps.clock().toISOString() } } : {}),
  };
  if (read.status === 'future') return readLater(deps, ref, checks, post);
  await deps.publications.recordScheduleCheck(ref, { post, checks });
  return 'live';
}

/** Another read after the next wait, or none after the last one. */
async function readLater(
  deps: ConfirmScheduledDeps,
  ref: ArticleRef,
  checks: number,
  post?: NonNullable<Parameters<ScheduleConfirmations['recordScheduleCheck']>[1]['post']>,
): Promise<ScheduleCheckOutcome> {
  const wait = RECHECK_AFTER_MS[checks - 1];
  const nextCheckAt = wait === undefined ? undefined : new Date(deps.clock().getTime() + wait).toISOString();
  await deps.publications.recordScheduleCheck(ref, {
    checks,
    ...(post ? { post } : {}),
    ...(nextCheckAt ? { nextCheckAt } : {}),
  });
  return nextCheckAt ? 'still_scheduled' : 'done';
}
