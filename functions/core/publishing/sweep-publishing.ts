/** The sweeper's website work: publications due for a retry, and periodic site health checks. */

import pLimit from 'p-limit';
import { DUE_SLACK_MS } from '../articles/lifecycle-policy';
import { CmsError } from '../websites/cms-client';
import { checkSite } from '../websites/site-check';
import type { Website } from '../websites/website';
import { type PublishDeps, type PublishOutcome, publishArticle } from './publish-article';

/** Publications and site checks handled per sweep; the rest wait for the next run. */
export const PUBLISH_BATCH = 25;
export const CHECK_BATCH = 10;
/** How often each website is checked (login, role, categories). */
export const CHECK_INTERVAL_MS = 60 * 60_000;
/** Calls to sites in flight at once. */
const CONCURRENCY = 4;

/** Attempts every publication whose retry is due; none is started once `signal` aborted (budget spent). */
export async function retryDuePublications(
  deps: PublishDeps,
  signal?: AbortSignal,
): Promise<Record<PublishOutcome | 'errors', number>> {
  const dueBy = new Date(deps.clock().getTime() + DUE_SLACK_MS).toISOString();
  const due = await deps.publications.listDue(dueBy, PUBLISH_BATCH);
  const counts: Record<PublishOutcome | 'errors', number> = {
    published: 0,
    retry_scheduled: 0,
    failed: 0,
    skipped: 0,
    website_gone: 0,
    errors: 0,
  };
  const limit = pLimit(CONCURRENCY);
  await Promise.all(
    due.map((ref) =>
      limit(async () => {
        // Not started: still due for the next sweep.
        if (signal?.aborted) return;
        // An error here (storage, not the site) leaves the publication due: the next sweep tries again.
        const outcome = await publishArticle(deps, ref).catch(() => 'errors' as const);
        counts[outcome]++;
      }),
    ),
  );
  return counts;
}

/**
 * What one health check found: the site answered as it should, or did not (flags set), or the
 * website was deleted while it ran (nothing kept).
 */
export type CheckOutcome = 'healthy' | 'failing' | 'gone';

/**
 * Logs in to each website not checked for `CHECK_INTERVAL_MS`: sets or clears its flags and
 * refreshes its categories from the site. None is started once `signal` aborted (budget spent).
 */
export async function checkWebsites(
  deps: Pick<PublishDeps, 'websites' | 'categories' | 'cipher' | 'cms' | 'clock'>,
  signal?: AbortSignal,
): Promise<Record<CheckOutcome | 'errors', number>> {
  const now = deps.clock();
  const due = await deps.websites.listDueForCheck(
    new Date(now.getTime() - CHECK_INTERVAL_MS).toISOString(),
    CHECK_BATCH,
  );
  const result: Record<CheckOutcome | 'errors', number> = { healthy: 0, failing: 0, gone: 0, errors: 0 };
  const limit = pLimit(CONCURRENCY);
  await Promise.all(
    due.map((website) =>
      limit(async () => {
        if (signal?.aborted) return;
        const outcome = await checkWebsite(deps, website, now).catch(() => 'errors' as const);
        result[outcome]++;
      }),
    ),
  );
  return result;
}

/** One health check (see `checkSite`): a failing site is flagged, not an error of the sweep. */
export async function checkWebsite(
  deps: Pick<PublishDeps, 'websites' | 'categories' | 'cipher' | 'cms'>,
  website: Website,
  now: Date,
): Promise<CheckOutcome> {
  try {
    return (await checkSite(deps, website, now)) === 'gone' ? 'gone' : 'healthy';
  } catch (error) {
    if (error instanceof CmsError) return 'failing';
    throw error;
  }
}
