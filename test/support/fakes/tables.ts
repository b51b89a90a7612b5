/**
 * The in-memory "database" the fakes share, like the DynamoDB tables the adapters share: one
 * article record seen by the article store and the publication store, the account's credits
 * changed by reservations and refunds, the website's counters by completions. Reads hand out
 * copies, so a caller never changes what is stored by changing what it got.
 */
import type { Account, ApiTokenRecord } from '../../../functions/core/accounts';
import type { Article } from '../../../functions/core/articles/article';
import type { Category, Website } from '../../../functions/core/websites/website';

export type SweepKind = 'reservation' | 'generation' | 'publication' | 'confirmation' | 'outline';

/** An article and where it sits in the indexes (the queue listing, the sweeper's due work). */
export interface ArticleRow {
  article: Article & { cancelledAt?: string; failedAt?: string; publishFailedAt?: string };
  queued: boolean;
  sweep?: { kind: SweepKind; at: string };
}

export interface UsageDayRow {
  articlesGenerated: number;
  creditsUsed: number;
  websites: Map<string, { articlesGenerated: number; creditsUsed: number }>;
}

export class InMemoryTables {
  readonly accounts = new Map<string, Account>();
  readonly tokens = new Map<string, ApiTokenRecord>();
  /** `accountId/articleUuid` -> row. */
  readonly articles = new Map<string, ArticleRow>();
  /** accountId -> the last queue number taken. */
  readonly queueSeqs = new Map<string, number>();
  /** `accountId/day` -> generations started (reserved) that day. */
  readonly dailyStarts = new Map<string, number>();
  /** `accountId/day` -> generated articles and credits that day. */
  readonly usageDays = new Map<string, UsageDayRow>();
  /** `accountId/websiteUuid` -> website; the URL guard is `urlGuards`. */
  readonly websites = new Map<string, Website>();
  readonly urlGuards = new Map<string, string>();
  /** `websiteUuid/categoryUuid` -> category. */
  readonly categories = new Map<string, Category>();
}

export const key = (...parts: string[]) => parts.join('/');

export function copy<T>(value: T): T {
  return structuredClone(value);
}
