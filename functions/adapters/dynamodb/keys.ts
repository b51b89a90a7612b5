/** Key builders for items whose sort key is not a bare id. */
export const websiteKeys = {
  /** The website item. */
  website: (accountId: string, websiteUuid: string) => ({ accountId, websiteKey: `site#${websiteUuid}` }),
  /** Guard item that keeps one account from registering the same URL twice. */
  urlGuard: (accountId: string, normalizedUrl: string) => ({ accountId, websiteKey: `url#${normalizedUrl}` }),
  /** The website's profile (site-profile-repository.ts): voice, audience, facts, defaults. */
  profile: (accountId: string, websiteUuid: string) => ({ accountId, websiteKey: `profile#${websiteUuid}` }),
  /** Sort key of the newest-first listing index. */
  listSortKey: (createdAt: string, websiteUuid: string) => `${createdAt}#${websiteUuid}`,
};

export const articleKeys = {
  article: (accountId: string, articleUuid: string) => ({ accountId, articleUuid }),
};

/** Kinds of work the sweeper does; each is spread over `SWEEP_SHARDS` partitions of the sweep index. */
export const SWEEP_BUCKET = {
  /** Deferred reservations (not enough credits, daily limit). */
  reservation: 'reservation',
  /** Queued articles: due when a message was never sent or a worker's lease expired. */
  generation: 'generation',
  /** Generated articles whose publication is due (first try after a grace period, or a retry). */
  publication: 'publication',
  /** Published articles whose scheduled post is due for a read after its time. */
  confirmation: 'confirmation',
  /** Outlines waiting for approval (`outline_ready`): due when the review expires. */
  outline: 'outline',
} as const;
export type SweepBucket = (typeof SWEEP_BUCKET)[keyof typeof SWEEP_BUCKET];

/**
 * Partitions per kind of sweep work. Due items are spread by article uuid, so 10,000 items
 * due in one minute are ~625 per partition key (well under a partition's write rate).
 */
export const SWEEP_SHARDS = 16;

/** The sweep partition of one article for one kind of work (stable: derived from its uuid). */
export function sweepBucketOf(kind: SweepBucket, articleUuid: string): string {
  const shard = Number.parseInt(articleUuid.replace(/-/g, '').slice(-4), 16) % SWEEP_SHARDS;
  return `${kind}#${Number.isNaN(shard) ? 0 : shard}`;
}

/** Every partition of one kind, plus the unsharded name items written before sharding carry. */
export function sweepBucketsOf(kind: SweepBucket): string[] {
  return [kind, ...Array.from({ length: SWEEP_SHARDS }, (_, shard) => `${kind}#${shard}`)];
}
