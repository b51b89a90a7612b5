/**
 * Accept a batch: every row checked exactly as a single create (its schema with the website
 * profile's defaults, the website, the category, the topic check), the calendar spread over the
 * items, then ONE reservation for all of them (BatchStore.create) and the generation messages.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { BatchRowsError, SameTopicError, UnauthenticatedError, ValidationError } from '../errors';
import type { SiteIndexStore, SiteProfileStore } from '../websites/ports';
import type { Website } from '../websites/website';
import { toWireTime } from '../wire';
import type { Article, ArticleRequest } from './article';
import { focusKeywordOf } from './article-seo';
import { type Batch, type BatchSchedule, batchArticleUuid, type RejectedRow } from './batch';
import type { BatchRequest } from './batch-input';
import type { BatchStore } from './batch-ports';
import { publishTimes } from './batch-schedule';
import { type CreateArticleDeps, newArticle, resolveRequest } from './create-article';
import { LATEST_PUBLISH_AT } from './create-article-input';
import { namingProfileDefaults, parseCreateArticleRequest } from './create-article-request';
import { sendForGeneration } from './generation-messages';
import { WAITING_RECHECK_MS } from './lifecycle-policy';
import type { CategoryLookup, GenerationDispatch, WebsiteLookup } from './ports';
import { reservationAt } from './reservation-policy';
import { comparableText } from './same-topic';
import { scheduleTimeZone } from './schedule-time-zone';

export interface CreateBatchDeps
  extends Pick<
    CreateArticleDeps,
    | 'accounts'
    | 'websites'
    | 'categories'
    | 'siteIndex'
    | 'queue'
    | 'clock'
    | 'sourcePolicy'
    | 'allowPlainHttpImages'
  > {
  batches: Pick<BatchStore, 'create'>;
  articles: GenerationDispatch;
  profiles: Pick<SiteProfileStore, 'get'>;
  /** Called when a generation message could not be sent; the next sweep sends it. */
  onEnqueueFailure?: (error: unknown, article: Pick<Article, 'articleUuid'>) => void;
}

/** Messages sent side by side after the reservation. */
const SEND_CONCURRENCY = 16;

export interface AcceptedBatch {
  batch: Batch;
  /** The batch's articles, in item order, each in the state its reservation gave it. */
  articles: Article[];
  /** False when the batch was stored by an earlier copy of the request (same Idempotency-Key). */
  created: boolean;
}

interface ValidRow {
  row: number;
  request: ArticleRequest;
  profile?: Article['siteProfile'];
}

/**
 * `keyed` (from an Idempotency-Key) names the batch, so that a copy of the request finds the batch
 * the first one stored instead of reserving again; a different request under the key is refused.
 */
export async function createBatch(
  deps: CreateBatchDeps,
  accountId: string,
  request: BatchRequest,
  keyed?: { batchUuid: string; requestHash: string },
): Promise<AcceptedBatch> {
  const account = await deps.accounts.get(accountId);
  if (!account) throw new UnauthenticatedError();
  const lookups = memoised(deps);
  const { valid, rejected } = await checkRows(lookups, accountId, request);
  if (valid.length === 0 || (rejected.length > 0 && !request.partial)) {
    throw new BatchRowsError(rejected, refusalMessage(rejected, valid.length > 0));
  }
  const schedule = request.schedule
    ? resolveSchedule(
        request.schedule,
        await websitesOf(
          lookups.websites,
          accountId,
          valid.map((item) => item.request.websiteUuid),
        ),
      )
    : undefined;
  const times = schedule
    ? publishTimes(schedule, valid.filter((item) => !item.request.publishAt).length)
    : [];
  let slot = 0;
  const scheduled = valid.map((item) => (schedule && !item.request.publishAt ? times[slot++] : undefined));
  refuseTimesPastTheLatest(valid, scheduled);

  const now = deps.clock();
  const batchUuid = keyed?.batchUuid ?? randomUUID();
  const articles = valid.map((item, index): Article => {
    const publishAt = scheduled[index];
    return {
      ...newArticle(
        { ...item.request, ...(publishAt ? { publishAt } : {}) },
        {
          accountId,
          articleUuid: batchArticleUuid(batchUuid, index),
          now,
          ...(item.profile ? { profile: item.profile } : {}),
        },
      ),
      batchUuid,
    };
  });
  const { batch, created } = await deps.batches.create(
    {
      accountId,
      batchUuid,
      createdAt: now.toISOString(),
      ...(keyed ? { requestHash: keyed.requestHash } : {}),
      rows: valid.map((item) => item.row),
      rejected,
      ...(schedule ? { schedule } : {}),
    },
    articles,
    reservationAt(now, 0, account.dailyLimit),
  );
  const stored = articles.map((article, index): Article => {
    const outcome = batch.outcomes[index] ?? 'reserved';
    return { ...article, state: outcome === 'reserved' ? 'queued' : outcome };
  });
  // A batch an earlier copy stored sent its messages (or the sweeper sends them after the grace).
  if (created)
    await sendAll(
      deps,
      stored.filter((article) => article.state === 'queued'),
      now,
    );
  return { batch, articles: stored, created };
}

/** Why the batch was refused; `partial=1` is advised only when other rows were valid. */
function refusalMessage(rejected: RejectedRow[], someValid: boolean): string {
  const one = rejected.length === 1;
  const rows = `${one ? 'row' : 'rows'} ${rejected.map(({ row }) => row).join(', ')}`;
  const them = one ? 'it' : 'them';
  return `${rejected.length} ${one ? 'row is' : 'rows are'} invalid (${rows}); nothing was created. ${
    someValid
      ? `Correct ${them}, or send partial=1 to create the valid rows only.`
      : `No row is valid: correct ${them}.`
  }`;
}

/** A calendar time is held to a create's bound on publish_at: the first row past it refuses the schedule. */
function refuseTimesPastTheLatest(valid: ValidRow[], scheduled: (string | undefined)[]): void {
  const index = scheduled.findIndex((time) => time !== undefined && Date.parse(time) >= LATEST_PUBLISH_MS);
  if (index < 0) return;
  throw ValidationError.forField(
    'schedule',
    `The schedule would publish row ${valid[index]?.row} at ${toWireTime(scheduled[index])} UTC, and a publish_at must be before ${LATEST_PUBLISH_AT}: start earlier, or send fewer items.`,
  );
}

const LATEST_PUBLISH_MS = Date.parse(LATEST_PUBLISH_AT);

/**
 * Sends the reserved items' messages (10 a call where the queue can) and records them sent, as
 * `sendForGeneration` does one by one; an unsent one is due for the next sweep.
 */
async function sendAll(deps: CreateBatchDeps, articles: Article[], now: Date): Promise<void> {
  const limit = pLimit(SEND_CONCURRENCY);
  if (!deps.queue.enqueueMany) {
    await Promise.all(
      articles.map((article) =>
        limit(() =>
          sendForGeneration(deps, article, now, (error) => deps.onEnqueueFailure?.(error, article)),
        ),
      ),
    );
    return;
  }
  const failed = new Set(
    (
      await deps.queue.enqueueMany(articles.map(({ accountId, articleUuid }) => ({ accountId, articleUuid })))
    ).map((message) => message.articleUuid),
  );
  const recheckAt = new Date(now.getTime() + WAITING_RECHECK_MS).toISOString();
  const sent = articles.filter((article) => !failed.has(article.articleUuid));
  await Promise.all([
    ...articles
      .filter((article) => failed.has(article.articleUuid))
      .map((article) =>
        limit(async () => {
          deps.onEnqueueFailure?.(new Error('The generation message could not be sent'), article);
          await deps.articles.postponeCheck(article, now.toISOString()).catch(() => undefined);
        }),
      ),
    // Unrecorded, a sent article is sent once more by the sweeper after the grace: a harmless duplicate.
    deps.articles.markSentMany
      ? deps.articles.markSentMany(sent, recheckAt).catch(() => undefined)
      : Promise.all(
          sent.map((article) =>
            limit(() => deps.articles.markSent(article, recheckAt).catch(() => undefined)),
          ),
        ),
  ]);
}

/** Each row as a single create checks it; the refused ones with their messages by field. */
async function checkRows(
  lookups: ReturnType<typeof memoised>,
  accountId: string,
  request: BatchRequest,
): Promise<{ valid: ValidRow[]; rejected: RejectedRow[] }> {
  const valid: ValidRow[] = [];
  const rejected: RejectedRow[] = [];
  /** Topics of the valid rows so far, by website: two rows of one batch on one topic are a repeat. */
  const topics = new Map<string, number>();
  for (const { row, fields, errors } of request.rows) {
    if (errors !== undefined) {
      rejected.push({ row, errors });
      continue;
    }
    try {
      const parsed = await parseCreateArticleRequest({ profiles: lookups.profiles }, accountId, fields);
      const resolved = await resolveRequest(lookups, accountId, parsed.input).catch((error: unknown) => {
        throw namingProfileDefaults(error, parsed);
      });
      if (request.schedule && !resolved.websiteUuid) {
        throw ValidationError.forField(
          'website_uuid',
          'A batch with a schedule publishes to a website: the website_uuid field is required.',
        );
      }
      if (resolved.websiteUuid && !resolved.allowSameTopic) {
        const topic = `${resolved.websiteUuid}\n${comparableText(focusKeywordOf(resolved.keyword))}`;
        const earlier = topics.get(topic);
        if (earlier !== undefined) {
          throw ValidationError.forField(
            'keyword',
            `Row ${earlier} of this batch has the same topic for the same website. Send allow_same_topic=1 to write both.`,
          );
        }
        topics.set(topic, row);
      }
      valid.push({ row, request: resolved, ...(parsed.profile ? { profile: parsed.profile } : {}) });
    } catch (error) {
      if (error instanceof ValidationError) rejected.push({ row, errors: error.fieldErrors });
      else if (error instanceof SameTopicError) rejected.push({ row, errors: { keyword: [error.message] } });
      else throw error;
    }
  }
  return { valid, rejected };
}

/** The websites of the accepted rows (each read once: the rows' checks read them already). */
async function websitesOf(
  websites: WebsiteLookup,
  accountId: string,
  uuids: (string | undefined)[],
): Promise<Website[]> {
  const distinct = [...new Set(uuids.filter((uuid): uuid is string => uuid !== undefined))];
  const found = await Promise.all(distinct.map((uuid) => websites.get(accountId, uuid)));
  return found.filter((website): website is Website => website !== undefined);
}

/**
 * The schedule with its time zone: the one given, or else the one the items' website reported
 * (schedule-time-zone.ts).
 */
function resolveSchedule(
  schedule: NonNullable<BatchRequest['schedule']>,
  websites: Website[],
): BatchSchedule {
  return {
    start: schedule.start,
    every: schedule.every,
    at: schedule.at,
    timezone: scheduleTimeZone(schedule.timezone, websites),
    ...(schedule.weekdays ? { weekdays: schedule.weekdays } : {}),
  };
}

/** The lookups of the rows' checks, each read once per batch (500 rows name one website, as a rule). */
function memoised(deps: CreateBatchDeps) {
  const once = <Args extends unknown[], Result>(read: (...args: Args) => Promise<Result>) => {
    const seen = new Map<string, Promise<Result>>();
    return (...args: Args): Promise<Result> => {
      const key = JSON.stringify(args);
      let result = seen.get(key);
      if (!result) {
        result = read(...args);
        seen.set(key, result);
      }
      return result;
    };
  };
  const websites: WebsiteLookup = {
    get: once((accountId: string, websiteUuid: string) => deps.websites.get(accountId, websiteUuid)),
    getMany: (accountId, uuids) => deps.websites.getMany(accountId, uuids),
  };
  const categories: CategoryLookup = {
    get: once((websiteUuid: string, categoryUuid: string) => deps.categories.get(websiteUuid, categoryUuid)),
    getMany: (keys) => deps.categories.getMany(keys),
  };
  const siteIndex: Pick<SiteIndexStore, 'getState' | 'list'> | undefined = deps.siteIndex && {
    getState: once((websiteUuid: string) =>
      (deps.siteIndex as NonNullable<typeof deps.siteIndex>).getState(websiteUuid),
    ),
    list: once((websiteUuid: string) =>
      (deps.siteIndex as NonNullable<typeof deps.siteIndex>).list(websiteUuid),
    ),
  };
  return {
    websites,
    categories,
    ...(siteIndex ? { siteIndex } : {}),
    ...(deps.sourcePolicy ? { sourcePolicy: deps.sourcePolicy } : {}),
    ...(deps.allowPlainHttpImages !== undefined ? { allowPlainHttpImages: deps.allowPlainHttpImages } : {}),
    profiles: {
      get: once((accountId: string, websiteUuid: string) => deps.profiles.get(accountId, websiteUuid)),
    },
  };
}
