/** Key builders for items whose sort key is not a bare id. */
export const websiteKeys = {
  /** The website item. */
  website: (accountId: string, websiteUuid: string) => ({ accountId, websiteKey: `site#${websiteUuid}` }),
  /** Guard item that keeps one account from registering the same URL twice. */
  urlGuard: (accountId: string, normalizedUrl: string) => ({ accountId, websiteKey: `url#${normalizedUrl}` }),
  /** Sort key of the newest-first listing index. */
  listSortKey: (createdAt: string, websiteUuid: string) => `${createdAt}#${websiteUuid}`,
};

export const articleKeys = {
  article: (accountId: string, articleUuid: string) => ({ accountId, articleUuid }),
  /** Sort key of the (newest-first) queue index; present only until the article is generated. */
  queueSortKey: (createdAt: string, articleUuid: string) => `${createdAt}#${articleUuid}`,
};

/** Partition of the sweep index: one per kind of work the sweeper does. */
export const SWEEP_BUCKET = {
  /** Deferred reservations (not enough credits, daily limit). */
  reservation: 'reservation',
  /** Queued articles whose generation should be done by now (lost or dead-lettered messages). */
  generation: 'generation',
  /** Generated articles whose publication failed and must be retried. */
  publication: 'publication',
} as const;
export type SweepBucket = (typeof SWEEP_BUCKET)[keyof typeof SWEEP_BUCKET];
