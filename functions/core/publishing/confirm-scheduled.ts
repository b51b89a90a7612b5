/**
 * Scheduled posts read back after their time. WordPress makes a `future` post live from a WP-Cron
 * event, which some sites never run; a site nobody visits then keeps it `future`. The sweeper
 * reads each scheduled post once its time has passed (plugin 1.4 publishes a due post on that
 * read, as WP-Cron would have), records what the site shows (status, permalink, read-back) and
 * reads again later while the post is still `future` (the article shows `scheduled` meanwhile;
 * after the last read, or when reads stop, the clock decides again).
 */
import pLimit from 'p-limit';
import type { ArticleReads, Clock } from '../articles/ports';
import { readableSlug } from '../slug';
import { type CmsClient, CmsError, type CmsPostResult } from '../websites/cms-client';
import type { PasswordCipher } from '../websites/password-cipher';
import type { WebsiteStore } from '../websites/ports';
import { siteAccessOf } from '../websites/site-access';
import { healthAfterFailure } from '../websites/site-failures';
import type { ArticleRef, ScheduleCheck, ScheduleConfirmations } from './ports';

/** After a post's time, the first read; then the waits before each next read while it is `future`. */
export const FIRST_CHECK_AFTER_MS = 60_000;
export const RECHECK_AFTER_MS = [5 * 60_000, 15 * 60_000, 60 * 60_000, 6 * 60 * 60_000] as const;
export const MAX_SCHEDULE_CHECKS = RECHECK_AFTER_MS.length + 1;
/** While the website's login is flagged as refused: reads put off (not counted) this often, this long after the post's time. */
export const REFUSED_LOGIN_RECHECK_MS = 15 * 60_000;
export const PUT_OFF_WHILE_REFUSED_MS = 24 * 60 * 60_000;
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
  /** Told when a read failed (it is tried again on the schedule), e.g. to log it. */
  onReadFailed?: (ref: ArticleRef, error: unknown) => void;
}

export type ScheduleCheckOutcome =
  /** The site showed the post (live, or no longer scheduled: a draft, trashed): reads are over. */
  | 'live'
  /** Still `future` on the site, or not read now: read again later. */
  | 'still_scheduled'
  /** No more reads: the article, its website or its post is gone, or the last read was made. */
  | 'done'
  | 'errors';

/** When a published post is to be read back: its time plus a minute, for a scheduled post. */
export function firstCheckAt(status: string | null, publishedAt: string | undefined): string | undefined {
  if (status !== 'future' || !publishedAt) return undefined;
  return new Date(Date.parse(publishedAt) + FIRST_CHECK_AFTER_MS).toISOString();
}

/** Reads each scheduled post due for it; none is started once `signal` aborted (the sweep step's budget is spent). */
export async function confirmScheduledPosts(
  deps: ConfirmScheduledDeps,
  signal?: AbortSignal,
): Promise<Record<ScheduleCheckOutcome, number>> {
  const due = await deps.publications.listDueConfirmations(deps.clock().toISOString(), CONFIRM_BATCH);
  const counts: Record<ScheduleCheckOutcome, number> = { live: 0, still_scheduled: 0, done: 0, errors: 0 };
  const limit = pLimit(CONCURRENCY);
  await Promise.all(
    due.map((ref) =>
      limit(async () => {
        if (signal?.aborted) return;
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
  const stop = async () => {
    await deps.publications.recordScheduleCheck(ref, { checks, stillScheduled: false });
    return 'done' as const;
  };
  if (article?.publishState !== 'published' || !article.websiteUuid) return stop();
  const website = await deps.websites.get(article.accountId, article.websiteUuid);
  if (!website) return stop();
  // A refused login is not tried again (the plugin's throttle would lock the new one out too).
  // Within a day of the post's time the read is put off without counting, so the reads go on once
  // the credentials are updated; later it counts, so the reads end.
  if (website.loginIsUnauthorized) {
    const postTime = Date.parse(article.publishedAt ?? '');
    if (postTime + PUT_OFF_WHILE_REFUSED_MS > deps.clock().getTime()) {
      await deps.publications.recordScheduleCheck(ref, {
        checks: checks - 1,
        stillScheduled: article.scheduleStillFuture === true,
        nextCheckAt: new Date(deps.clock().getTime() + REFUSED_LOGIN_RECHECK_MS).toISOString(),
      });
      return 'still_scheduled';
    }
    return readLater(deps, ref, checks, false);
  }

  let read: CmsPostResult | undefined;
  try {
    read = await deps.cms.readPost(await siteAccessOf(deps, website), article.articleUuid);
  } catch (error) {
    deps.onReadFailed?.(ref, error);
    // No route: a plugin before 1.4 (its other routes work), or one being updated; the hourly
    // health check tells a deactivated plugin. Other failures flag it as a publication attempt does.
    if (error instanceof CmsError && error.code !== 'rest_no_route') {
      const health = healthAfterFailure(error);
      if (Object.keys(health).length > 0) {
        await deps.websites.recordHealth(website.accountId, website.websiteUuid, health);
      }
    }
    // Whatever failed (the site, a plugin before 1.4 or one being updated, the key): read later.
    return readLater(deps, ref, checks, false);
  }
  if (website.isUnreachable) {
    await deps.websites.recordHealth(website.accountId, website.websiteUuid, { isUnreachable: false });
  }
  // Deleted for good on the site (or made by another login than today's): nothing to read.
  if (!read) return stop();
  const live = read.status === 'publish';
  const post = {
    // A post that is not live has no link of its own yet (`?p=<id>`): the one stored stays.
    ...(live ? { cmsPermalink: read.permalink } : {}),
    ...(live && read.slug ? { slug: readableSlug(read.slug) } : {}),
    ...(read.site ? { site: read.site } : {}),
  };
  if (read.status !== 'future') {
    await deps.publications.recordScheduleCheck(ref, { post, checks, stillScheduled: false });
    return 'live';
  }
  // Moved later on the site: read again after its new time (this read does not count).
  const newTime = read.dateGmt ? Date.parse(read.dateGmt) : Number.NaN;
  if (newTime > deps.clock().getTime()) {
    const publishedAt = new Date(newTime).toISOString();
    await deps.publications.recordScheduleCheck(ref, {
      post: { ...post, publishedAt },
      checks: checks - 1,
      stillScheduled: false,
      nextCheckAt: firstCheckAt('future', publishedAt),
    });
    return 'still_scheduled';
  }
  return readLater(deps, ref, checks, true, post);
}

/**
 * Another read after the next wait, or none after the last one. `stillScheduled`: the site, read
 * after the post's time, still shows it scheduled (so does the article, while reads go on).
 */
async function readLater(
  deps: ConfirmScheduledDeps,
  ref: ArticleRef,
  checks: number,
  stillScheduled: boolean,
  post?: ScheduleCheck['post'],
): Promise<ScheduleCheckOutcome> {
  const wait = RECHECK_AFTER_MS[checks - 1];
  const nextCheckAt = wait === undefined ? undefined : new Date(deps.clock().getTime() + wait).toISOString();
  await deps.publications.recordScheduleCheck(ref, {
    checks,
    // After the last read the clock decides again: Inkpress no longer knows better.
    stillScheduled: stillScheduled && nextCheckAt !== undefined,
    ...(post ? { post } : {}),
    ...(nextCheckAt ? { nextCheckAt } : {}),
  });
  return nextCheckAt ? 'still_scheduled' : 'done';
}
