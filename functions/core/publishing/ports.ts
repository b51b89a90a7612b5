/** What publishing needs from storage besides the article, website and category stores. */
import type { PublicationSite } from '../websites/cms-client';

export interface ArticleRef {
  accountId: string;
  articleUuid: string;
}

export interface PublishedPost {
  cmsId: string;
  cmsPermalink: string;
  /** ISO time the post is (or will be) live; absent for drafts. */
  publishedAt?: string;
  /** The slug the site gave the post. */
  slug?: string;
  /** What the site kept, as the plugin read it back. */
  site?: PublicationSite;
  /** For a scheduled post: when to read it back to see it live (`confirm-scheduled.ts`). */
  confirmAt?: string;
}

/** What a read of a scheduled post after its time found. */
export interface ScheduleCheck {
  /** What the site shows of the post now (each part only when known); absent when it was not read. */
  post?: Partial<Pick<PublishedPost, 'cmsPermalink' | 'slug' | 'site' | 'publishedAt'>>;
  /** Reads tried so far, this one included. */
  checks: number;
  /** The site, read after the post's time, still shows it scheduled (and another read follows). */
  stillScheduled: boolean;
  /** When to read it again; absent: it leaves the sweep. */
  nextCheckAt?: string;
}

/** Scheduled posts read back after their time (the sweep index's `confirmation` bucket). */
export interface ScheduleConfirmations {
  /** Published articles whose scheduled post is due for a read by `dueBy`, oldest due first. */
  listDueConfirmations(dueBy: string, limit: number): Promise<ArticleRef[]>;
  /** Records a read (or a try); false when the article is not waiting for one any more. */
  recordScheduleCheck(ref: ArticleRef, check: ScheduleCheck): Promise<boolean>;
}

export interface PublicationRetry {
  attempts: number;
  /** ISO time of the next attempt. */
  nextAttemptAt: string;
  /** What went wrong, for the operator (no secrets). */
  lastError: string;
  /**
   * The site login of this attempt when it may have created the post all the same (the request
   * went out and no clear answer came back), kept until the post is found; `null` forgets this
   * attempt's mark (the site surely made nothing); absent leaves it as it is.
   */
  uncertainLogin?: string | null;
}

/** Publication: what each attempt (or a client's retry) records on the article. */
export interface Publications {
  /**
   * Records the post and takes the article out of the publication sweep (into the confirmation
   * sweep with `confirmAt`); false when it was already published.
   */
  markPublished(ref: ArticleRef, post: PublishedPost): Promise<boolean>;
  /**
   * Marks a pending publication with the site login of an attempt about to send the post, unless
   * an earlier attempt's login is there (see `PublicationRetry.uncertainLogin`).
   */
  markAttempting(ref: ArticleRef, login: string): Promise<void>;
  /** Schedules the next attempt; false when the article was published meanwhile. */
  scheduleRetry(ref: ArticleRef, retry: PublicationRetry): Promise<boolean>;
  /**
   * Stops trying: the publication is `failed` (permanent rejection, attempts used up, website
   * deleted); false when it was published meanwhile.
   */
  markFailed(ref: ArticleRef, failure: PublicationFailure): Promise<boolean>;
  /**
   * A client's retry of a `failed` publication: pending again, attempts and error cleared (an
   * uncertain login stays: publishing as another login then fails first, saying why), due at `dueAt`.
   */
  requeueFailed(ref: ArticleRef, dueAt: string): Promise<boolean>;
}

/** Sweeping publications: what is due, and bringing a website's pending ones forward. */
export interface PublicationSweeps {
  /** Articles whose publication attempt is due by `dueBy`, oldest due first. */
  listDue(dueBy: string, limit: number): Promise<ArticleRef[]>;
  /**
   * Makes the pending publications of one website due at `dueAt` (those due later), so the
   * next sweep attempts them; returns how many were moved.
   */
  makeDueForWebsite(accountId: string, websiteUuid: string, dueAt: string): Promise<number>;
}

export interface PublicationFailure {
  attempts: number;
  lastError: string;
  failedAt: string;
  /**
   * The uncertain login (see `PublicationRetry`): a login to keep (the last attempt's outcome is
   * unknown), `null` to forget it (this failure told the client), absent to leave it as it is.
   */
  uncertainLogin?: string | null;
}

/** Publication bookkeeping on article items (the sweep index's `publication` and `confirmation` buckets). */
export type PublicationStore = Publications & PublicationSweeps & ScheduleConfirmations;
