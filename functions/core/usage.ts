/**
 * What an account has and spends: `GET /v1/account` (balance, daily limit, today's starts) and
 * `GET /v1/account/usage` (articles generated and credits used per UTC day, in total and per
 * website). Usage days are counted in the transaction that completes a generation, so their
 * totals are those of the article records.
 */
import * as z from 'zod/mini';
import type { AccountStore } from './accounts';
import { NotFoundError, ValidationError } from './errors';
import { givenOnce, parseOrThrow } from './schema-helpers';
import { nextUtcMidnight, toWireTime, utcDay } from './wire';

/** Articles generated and credits used on one UTC day. */
export interface UsageDay {
  day: string;
  articlesGenerated: number;
  creditsUsed: number;
  /** Per linked website (articles without a website count in the totals only). */
  websites: { websiteUuid: string; articlesGenerated: number; creditsUsed: number }[];
}

export interface UsageStore {
  /** The recorded days of `from..to` (inclusive, `YYYY-MM-DD`), in order; days without usage are absent. */
  listDays(accountId: string, from: string, to: string): Promise<UsageDay[]>;
  /** Generations started (reserved against the daily limit) on one UTC day. */
  startedOn(accountId: string, day: string): Promise<number>;
}

export interface UsageDeps {
  accounts: Pick<AccountStore, 'get'>;
  usage: UsageStore;
  clock: () => Date;
}

/** Longest range one usage request may cover. */
export const MAX_USAGE_DAYS = 366;
/** Range when `from` / `to` are left out: the last 30 days up to today. */
export const DEFAULT_USAGE_DAYS = 30;

const DAY_MS = 86_400_000;
/** The first day a usage query may name (nothing was used before 1970; the regex caps years at 9999). */
export const FIRST_USAGE_DAY = '1970-01-01';

const isoDay = (label: string) =>
  z
    .string({
      error: (issue) =>
        Array.isArray(issue.input)
          ? givenOnce(label, 'date (YYYY-MM-DD)')
          : `The ${label} must be a date (YYYY-MM-DD).`,
    })
    .check(
      z.regex(/^\d{4}-\d{2}-\d{2}$/, { error: `The ${label} must be a date (YYYY-MM-DD).`, abort: true }),
      z.refine((value: string) => toDay(value) !== undefined, {
        error: `The ${label} is not a valid date.`,
        abort: true,
      }),
      z.refine((value: string) => value >= FIRST_USAGE_DAY, {
        error: `The ${label} may not be before ${FIRST_USAGE_DAY}.`,
        abort: true,
      }),
    );

/** Query of `GET /v1/account/usage`. */
export const usageQuerySchema = z
  .object({
    from: z
      .optional(isoDay('from'))
      .check(z.meta({ description: 'First UTC day (inclusive); default 29 days before `to`.' })),
    to: z
      .optional(isoDay('to'))
      .check(z.meta({ description: 'Last UTC day (inclusive); default today (UTC).' })),
  })
  .check(
    z.superRefine((query: { from?: string; to?: string }, context) => {
      if (!query.from || !query.to || !toDay(query.from) || !toDay(query.to)) return;
      const problem = rangeProblem(query.from, query.to);
      if (problem === 'reversed') {
        context.addIssue({ code: 'custom', path: ['to'], message: 'The to date must not be before from.' });
      } else if (problem === 'too_long') {
        context.addIssue({
          code: 'custom',
          path: ['to'],
          message: `The range may cover at most ${MAX_USAGE_DAYS} days.`,
        });
      }
    }),
  );

export async function showAccount(deps: UsageDeps, accountId: string) {
  const now = deps.clock();
  const account = await deps.accounts.get(accountId);
  if (!account) throw new NotFoundError('Account');
  const startedToday = await deps.usage.startedOn(accountId, utcDay(now));
  return {
    data: {
      name: account.name,
      credits: account.credits,
      daily_limit: account.dailyLimit,
      articles_started_today: startedToday,
      daily_remaining: Math.max(0, account.dailyLimit - startedToday),
      day_resets_at: toWireTime(nextUtcMidnight(now)),
    },
  };
}

export async function accountUsage(
  deps: Pick<UsageDeps, 'usage' | 'clock'>,
  accountId: string,
  query: Record<string, unknown>,
) {
  const input = parseOrThrow(usageQuerySchema, blankAsAbsent(query));
  const to = input.to ?? utcDay(deps.clock());
  const defaultFrom = shiftDay(to, -(DEFAULT_USAGE_DAYS - 1));
  const from = input.from ?? (defaultFrom < FIRST_USAGE_DAY ? FIRST_USAGE_DAY : defaultFrom);
  // A given `from` with the default `to` (today) must still make a valid range: `from` is at fault.
  const problem = input.to === undefined && input.from !== undefined ? rangeProblem(from, to) : undefined;
  if (problem === 'reversed') {
    throw ValidationError.forField('from', 'The from date must not be after today (UTC).');
  }
  if (problem === 'too_long') {
    throw ValidationError.forField(
      'from',
      `The range may cover at most ${MAX_USAGE_DAYS} days: without a to date, from may be at most ${MAX_USAGE_DAYS - 1} days before today.`,
    );
  }
  const recorded = new Map((await deps.usage.listDays(accountId, from, to)).map((day) => [day.day, day]));
  const days = [];
  // Counted, not compared as text: the day after 9999-12-31 is written "+010000-01-01".
  for (let offset = 0, span = daysBetween(from, to); offset <= span; offset++) {
    const day = shiftDay(from, offset);
    const usage = recorded.get(day);
    days.push({
      date: day,
      articles_generated: usage?.articlesGenerated ?? 0,
      credits_used: usage?.creditsUsed ?? 0,
      websites: (usage?.websites ?? []).map((website) => ({
        website_uuid: website.websiteUuid,
        articles_generated: website.articlesGenerated,
        credits_used: website.creditsUsed,
      })),
    });
  }
  return {
    data: {
      from,
      to,
      articles_generated: days.reduce((sum, day) => sum + day.articles_generated, 0),
      credits_used: days.reduce((sum, day) => sum + day.credits_used, 0),
      days,
    },
  };
}

function blankAsAbsent(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== '' && value !== undefined));
}

function toDay(value: string): Date | undefined {
  const date = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || utcDay(date) !== value ? undefined : date;
}

/** What is wrong with the days `from..to` as a usage range, if anything. */
function rangeProblem(from: string, to: string): 'reversed' | 'too_long' | undefined {
  const span = daysBetween(from, to);
  if (span < 0) return 'reversed';
  return span + 1 > MAX_USAGE_DAYS ? 'too_long' : undefined;
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

function shiftDay(day: string, by: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + by * DAY_MS));
}
