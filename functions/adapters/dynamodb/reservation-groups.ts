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
import type { Reservation, ReservationOutcome } from '../../core/articles/ports';
import { type GroupOutcome, groupedCallsByKey } from '../../shared/grouped-calls';
import { articleToItem, type Item } from './article-item';
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
      if (whole === 'written') return members.map(() => ({ value: 'reserved' as const }));
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
      : (await reserveTogether(client, tables, head).catch(() => 'refused' as const)) === 'written'
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
function deferTogether(
  client: DynamoDBDocumentClient,
  tables: GroupTables,
  members: Member[],
  waiting: Waiting,
): Promise<boolean> {
  const { accountId } = (members[0] as Member).article;
  const { day } = (members[0] as Member).reservation;
  const { state } = waiting;
  const checks =
    waiting.state === 'not_enough_credits'
      ? [check(tables.accounts, { accountId }, 'credits < :n', waiting.cheapest)]
      : [
          check(tables.accounts, { accountId }, 'credits >= :n', waiting.dearest),
          check(tables.dailyUsage, { accountId, day }, 'generations >= :n', waiting.highestLimit),
        ];
  return writeGroup(
    client,
    tables,
    members,
    (article, reservation) =>
      articleToItem(deferredArticle(article, state, reservation), {
        queued: true,
        sweep: { kind: SWEEP_BUCKET.reservation, at: deferral(state, reservation).retryAt },
      }),
    checks,
  ).then((outcome) => outcome === 'written');
}

function check(TableName: string, Key: Record<string, string>, ConditionExpression: string, n: number) {
  return { ConditionCheck: { TableName, Key, ConditionExpression, ExpressionAttributeValues: { ':n': n } } };
}

/** The account's credits and the day's count, read now (consistently). */
async function readBalance(
  client: DynamoDBDocumentClient,
  tables: GroupTables,
  accountId: string,
  day: string,
): Promise<{ credits: number; started: number }> {
  const read = (TableName: string, Key: Record<string, string>, attribute: string) =>
    client
      .send(new GetCommand({ TableName, Key, ConsistentRead: true, ProjectionExpression: attribute }))
      .then(({ Item }) => Number(Item?.[attribute] ?? 0));
  const [credits, started] = await Promise.all([
    read(tables.accounts, { accountId }, 'credits'),
    read(tables.dailyUsage, { accountId, day }, 'generations'),
  ]);
  return { credits, started };
}

/**
 * Every member reserved in one transaction (`written`); `short` when the credits or the day's
 * slots did not cover them all; `refused` when an article's own condition failed (stored by an
 * earlier try).
 */
async function reserveTogether(
  client: DynamoDBDocumentClient,
  tables: GroupTables,
  members: Member[],
): Promise<GroupWrite> {
  const { accountId } = (members[0] as Member).article;
  const { day } = (members[0] as Member).reservation;
  const count = members.length;
  // The lowest limit any member read: a group is never let past a limit one of them saw.
  const dailyLimit = Math.min(...members.map(({ reservation }) => reservation.dailyLimit));
  if (dailyLimit < count) return 'short';
  const total = members.reduce((sum, { reservation }) => sum + reservation.price, 0);
  return writeGroup(
    client,
    tables,
    members,
    (article, reservation) =>
      articleToItem(reservedArticle(article, reservation), {
        queued: true,
        sweep: { kind: SWEEP_BUCKET.generation, at: reservation.sendBy },
      }),
    [
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
    ],
  );
}

type GroupWrite = 'written' | 'short' | 'refused';

/**
 * One transaction: the members' articles (`itemOf`), numbered in a row from queue numbers taken
 * with one UpdateItem, each put conditional on its uuid being new, the `beside` items, and the
 * queue counters. `refused` when an article's put failed, `short` when an item `beside` did.
 */
async function writeGroup(
  client: DynamoDBDocumentClient,
  tables: GroupTables,
  members: Member[],
  itemOf: (article: Article, reservation: Reservation) => Item,
  beside: TransactItem[],
): Promise<GroupWrite> {
  const { accountId } = (members[0] as Member).article;
  const count = members.length;
  const firstSeq = await takeQueueSeqs(client, tables.articles, accountId, count);
  const puts = members.map(
    ({ article, reservation }, index): TransactItem => ({
      Put: {
        TableName: tables.articles,
        Item: itemOf({ ...article, queueSeq: firstSeq + index }, reservation),
        ConditionExpression: 'attribute_not_exists(articleUuid)',
      },
    }),
  );
  const call = randomUUID();
  return transactWithRetry<GroupWrite>(
    client,
    async (attempt) => ({
      // The SDK's own retries resend this token: a transaction that did commit is not applied twice.
      ClientRequestToken: transactionToken(call, attempt),
      TransactItems: [
        ...puts,
        ...beside,
        ...queueCountUpdatesOfRun(tables.articles, accountId, firstSeq, count),
      ],
    }),
    'written',
    (codes) => {
      if (puts.some((_, index) => conditionFailed(codes, index))) return { result: 'refused' };
      if (beside.some((_, index) => conditionFailed(codes, count + index))) return { result: 'short' };
      return undefined;
    },
  );
}
