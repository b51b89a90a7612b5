/**
 * Creates of one account reserved together (group commit). A create that finds none of its
 * account's reservations in flight reserves alone, as it always did; creates that arrive while
 * one is in flight wait for it and then reserve together, in ONE transaction of a few items more
 * than their articles: every article put (each conditional on its uuid being new), the credits
 * of all of them subtracted (`credits >= :sum`), the day's count raised by all of them
 * (`generations <= limit - n`), and the queue counters of their consecutive queue numbers
 * (taken with one UpdateItem). So a group is reserved whole or not at all, exactly as one
 * article is.
 *
 * When the credits or the day's slots do not cover the whole group, it is planned as a batch is:
 * the first members the credits and slots read cover are reserved together, and the others are
 * stored waiting together, in a transaction that checks that each of them would have been refused
 * alone (`credits < :cheapest` for credits; for the daily limit, `generations >= :limit` and
 * `credits >= :dearest`, since a create short of both waits for credits). When any of these
 * transactions is cancelled (the credits moved, an article was stored by an earlier try) or
 * fails, its members reserve alone, as if no group had been tried, and each gets exactly what it
 * would have got (the uuid of an article a group did store makes its own put fail, and it then
 * reads what was stored).
 *
 * A Lambda serves one request at a time, so there a group is always of one: the calls are those of
 * before. The local runtime serves many requests at once in one process, and the hot account of
 * `npm run bench` (200 creates at once) becomes a few transactions instead of 200: DynamoDB Local
 * runs transactions on one item one after the other (docs/decisions.md, "Hot account").
 */
import { randomUUID } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import { deferral, deferredArticle, reservedArticle } from '../../core/articles/article-rules';
import type { DeferredState, Reservation, ReservationOutcome } from '../../core/articles/ports';
import { type GroupOutcome, groupedCallsByKey } from '../../shared/grouped-calls';
import { articleToItem } from './article-item';
import { SWEEP_BUCKET } from './keys';
import { queueCountUpdatesOfRun, takeQueueSeqs } from './queue-positions';
import { conditionFailed, transactionToken, transactWithRetry } from './transactions';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface GroupTables {
  articles: string;
  accounts: string;
  dailyUsage: string;
}

interface Member {
  article: Article;
  reservation: Reservation;
}

/** Articles per group: with the 4 or 5 counter items, within DynamoDB's 100 per transaction. */
export const MAX_RESERVATION_GROUP = 50;
/** A group's articles, in bytes of JSON at most (a transaction carries at most 4 MB). */
const MAX_GROUP_BYTES = 2_000_000;
/** Daily usage items expire a few days after their day (as in article-reservations.ts). */
const DAILY_USAGE_TTL_SECONDS = 3 * 24 * 3600;

/**
 * `createWithReservation` with grouping: `alone` is the one-article path (numbering, the
 * reservation transaction, the deferral), used for a group of one and for every member of a
 * group that could not be reserved whole.
 */
export function reservationGroups(
  client: DynamoDBDocumentClient,
  tables: GroupTables,
  alone: (article: Article, reservation: Reservation) => Promise<ReservationOutcome>,
): (article: Article, reservation: Reservation) => Promise<ReservationOutcome> {
  const eachAlone = (members: Member[]): Promise<GroupOutcome<ReservationOutcome>[]> =>
    Promise.all(
      members.map(({ article, reservation }) =>
        alone(article, reservation).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
      ),
    );
  const grouped = groupedCallsByKey<Member, ReservationOutcome>(
    // One day's count per group: creates on either side of midnight never share one.
    ({ article, reservation }) => `${article.accountId}\n${reservation.day}`,
    async (members) => {
      if (members.length === 1 || !fitsOneTransaction(members)) return eachAlone(members);
      const whole = await reserveTogether(client, tables, members).catch(() => 'refused' as const);
      if (whole === 'reserved') return members.map(() => ({ value: 'reserved' as const }));
      if (whole === 'refused') return eachAlone(members);
      return planGroup(client, tables, members, eachAlone);
    },
    { maxGroup: MAX_RESERVATION_GROUP, inFlight: 1 },
  );
  return (article, reservation) => grouped({ article, reservation });
}

function fitsOneTransaction(members: Member[]): boolean {
  const bytes = members.reduce((sum, { article }) => sum + JSON.stringify(article).length, 0);
  return bytes <= MAX_GROUP_BYTES;
}

/**
 * A group the credits or the day's slots did not cover whole: its first members that the credits
 * and slots read now cover are reserved together, then the others stored waiting together when
 * each of them would be refused alone; what does not go through goes alone.
 */
async function planGroup(
  client: DynamoDBDocumentClient,
  tables: GroupTables,
  members: Member[],
  eachAlone: (members: Member[]) => Promise<GroupOutcome<ReservationOutcome>[]>,
): Promise<GroupOutcome<ReservationOutcome>[]> {
  const first = members[0] as Member;
  const read = await readBalance(client, tables, first.article.accountId, first.reservation.day).catch(
    () => undefined,
  );
  if (!read) return eachAlone(members);
  const dailyLimit = Math.min(...members.map(({ reservation }) => reservation.dailyLimit));
  let covered = 0;
  let charge = 0;
  for (const { reservation } of members) {
    if (charge + reservation.price > read.credits || read.started + covered + 1 > dailyLimit) break;
    charge += reservation.price;
    covered++;
  }
  const head = members.slice(0, covered);
  const rest = members.slice(covered);
  const headOutcomes =
    head.length < 2
      ? await eachAlone(head)
      : (await reserveTogether(client, tables, head).catch(() => 'refused' as const)) === 'reserved'
        ? head.map(() => ({ value: 'reserved' as const }))
        : await eachAlone(head);
  const waiting = waitingState(rest, read.credits - charge, read.started + covered);
  const restOutcomes =
    waiting && (await deferTogether(client, tables, rest, waiting).catch(() => false))
      ? rest.map(() => ({ value: waiting.state }))
      : await eachAlone(rest);
  return [...headOutcomes, ...restOutcomes];
}

/** What every one of `rest` would get alone with these credits and this day's count, if the same. */
function waitingState(rest: Member[], credits: number, started: number): Waiting | undefined {
  if (rest.length === 0) return undefined;
  const prices = rest.map(({ reservation }) => reservation.price);
  const cheapest = Math.min(...prices);
  if (credits < cheapest) return { state: 'not_enough_credits', cheapest };
  const dearest = Math.max(...prices);
  const highestLimit = Math.max(...rest.map(({ reservation }) => reservation.dailyLimit));
  if (credits >= dearest && started >= highestLimit) {
    return { state: 'daily_limit_reached', dearest, highestLimit };
  }
  return undefined;
}

type Waiting =
  | { state: 'not_enough_credits'; cheapest: number }
  | { state: 'daily_limit_reached'; dearest: number; highestLimit: number };

/**
 * The members stored waiting in one transaction, conditional on each of them being refused alone
 * now; false when that no longer holds (cancelled).
 */
async function deferTogether(
  client: DynamoDBDocumentClient,
  tables: GroupTables,
  members: Member[],
  waiting: Waiting,
): Promise<boolean> {
  const first = members[0] as Member;
  const { accountId } = first.article;
  const state: DeferredState = waiting.state;
  const firstSeq = await takeQueueSeqs(client, tables.articles, accountId, members.length);
  const puts = members.map(
    ({ article, reservation }, index): TransactItem => ({
      Put: {
        TableName: tables.articles,
        Item: articleToItem(deferredArticle({ ...article, queueSeq: firstSeq + index }, state, reservation), {
          queued: true,
          sweep: { kind: SWEEP_BUCKET.reservation, at: deferral(state, reservation).retryAt },
        }),
        ConditionExpression: 'attribute_not_exists(articleUuid)',
      },
    }),
  );
  const checks: TransactItem[] =
    waiting.state === 'not_enough_credits'
      ? [
          {
            ConditionCheck: {
              TableName: tables.accounts,
              Key: { accountId },
              ConditionExpression: 'credits < :cheapest',
              ExpressionAttributeValues: { ':cheapest': waiting.cheapest },
            },
          },
        ]
      : [
          {
            ConditionCheck: {
              TableName: tables.accounts,
              Key: { accountId },
              ConditionExpression: 'credits >= :dearest',
              ExpressionAttributeValues: { ':dearest': waiting.dearest },
            },
          },
          {
            ConditionCheck: {
              TableName: tables.dailyUsage,
              Key: { accountId, day: first.reservation.day },
              ConditionExpression: 'generations >= :limit',
              ExpressionAttributeValues: { ':limit': waiting.highestLimit },
            },
          },
        ];
  return transactWithRetry<boolean>(
    client,
    async () => ({
      TransactItems: [
        ...puts,
        ...checks,
        ...queueCountUpdatesOfRun(tables.articles, accountId, firstSeq, members.length),
      ],
    }),
    true,
    (codes) => (codes.some((_, index) => conditionFailed(codes, index)) ? { result: false } : undefined),
  );
}

/** The account's credits and the day's count, read now (consistently). */
async function readBalance(
  client: DynamoDBDocumentClient,
  tables: GroupTables,
  accountId: string,
  day: string,
): Promise<{ credits: number; started: number }> {
  const [account, usage] = await Promise.all([
    client.send(
      new GetCommand({
        TableName: tables.accounts,
        Key: { accountId },
        ConsistentRead: true,
        ProjectionExpression: 'credits',
      }),
    ),
    client.send(
      new GetCommand({
        TableName: tables.dailyUsage,
        Key: { accountId, day },
        ConsistentRead: true,
        ProjectionExpression: 'generations',
      }),
    ),
  ]);
  return { credits: Number(account.Item?.credits ?? 0), started: Number(usage.Item?.generations ?? 0) };
}

/**
 * Every member reserved in one transaction (`reserved`); `short` when the credits or the day's
 * slots did not cover them all; `refused` when an article's own condition failed (stored by an
 * earlier try).
 */
async function reserveTogether(
  client: DynamoDBDocumentClient,
  tables: GroupTables,
  members: Member[],
): Promise<'reserved' | 'short' | 'refused'> {
  const first = members[0] as Member;
  const { accountId } = first.article;
  const { day } = first.reservation;
  const count = members.length;
  // The lowest limit any member read: a group is never let past a limit one of them saw.
  const dailyLimit = Math.min(...members.map(({ reservation }) => reservation.dailyLimit));
  if (dailyLimit < count) return 'short';
  const total = members.reduce((sum, { reservation }) => sum + reservation.price, 0);
  const firstSeq = await takeQueueSeqs(client, tables.articles, accountId, count);
  const puts = members.map(
    ({ article, reservation }, index): TransactItem => ({
      Put: {
        TableName: tables.articles,
        Item: articleToItem(reservedArticle({ ...article, queueSeq: firstSeq + index }, reservation), {
          queued: true,
          sweep: { kind: SWEEP_BUCKET.generation, at: reservation.sendBy },
        }),
        ConditionExpression: 'attribute_not_exists(articleUuid)',
      },
    }),
  );
  const call = randomUUID();
  return transactWithRetry<'reserved' | 'short' | 'refused'>(
    client,
    async (attempt) => ({
      // The SDK's own retries resend this token: a transaction that did commit is not applied twice.
      ClientRequestToken: transactionToken(call, attempt),
      TransactItems: [
        ...puts,
        {
          Update: {
            TableName: tables.accounts,
            Key: { accountId },
            UpdateExpression: 'SET credits = credits - :total',
            ConditionExpression: 'credits >= :total',
            ExpressionAttributeValues: { ':total': total },
          },
        },
        {
          Update: {
            TableName: tables.dailyUsage,
            Key: { accountId, day },
            UpdateExpression:
              'SET generations = if_not_exists(generations, :zero) + :count, expiresAt = :expiresAt',
            ConditionExpression: 'attribute_not_exists(generations) OR generations <= :before',
            ExpressionAttributeValues: {
              ':zero': 0,
              ':count': count,
              ':before': dailyLimit - count,
              ':expiresAt': Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + DAILY_USAGE_TTL_SECONDS,
            },
          },
        },
        ...queueCountUpdatesOfRun(tables.articles, accountId, firstSeq, count),
      ],
    }),
    'reserved',
    (codes) => {
      if (puts.some((_, index) => conditionFailed(codes, index))) return { result: 'refused' };
      if (conditionFailed(codes, count) || conditionFailed(codes, count + 1)) return { result: 'short' };
      return undefined;
    },
  );
}
