/**
 * Creates of one account reserved together (group commit). A create that finds none of its
 * account's reservations in flight reserves alone, as it always did; creates that arrive while
 * one is in flight wait for it and then reserve together, in ONE transaction of a few items more
 * than their articles: every article put (each conditional on its uuid being new), the credits
 * of all of them subtracted (`credits >= :sum`), the day's count raised by all of them
 * (`generations <= limit - n`), and the queue counters of their consecutive queue numbers
 * (taken with one UpdateItem). So a group is reserved whole or not at all, exactly as one
 * article is; when its transaction is cancelled (the credits or the day's slots do not cover all
 * of them, an article was stored by an earlier try) or fails, each member reserves alone,
 * as if no group had been tried, and gets exactly what it would have got (the uuid of an article
 * the group did store makes its own put fail, and it then reads what was stored).
 *
 * A Lambda serves one request at a time, so there a group is always of one: the calls are those of
 * before. The local runtime serves many requests at once in one process, and the hot account of
 * `npm run bench` (200 creates at once) becomes ~10 transactions instead of 200: DynamoDB Local
 * runs transactions on one item one after the other (docs/decisions.md, "Hot account").
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient, TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Article } from '../../core/articles/article';
import { reservedArticle } from '../../core/articles/article-rules';
import type { Reservation, ReservationOutcome } from '../../core/articles/ports';
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

/** Articles per group: with the 4 or 5 counter items, far below DynamoDB's 100 per transaction. */
export const MAX_RESERVATION_GROUP = 25;
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
      const reserved = await reserveTogether(client, tables, members).catch(() => false);
      return reserved ? members.map(() => ({ value: 'reserved' as const })) : eachAlone(members);
    },
    { maxGroup: MAX_RESERVATION_GROUP, inFlight: 1 },
  );
  return (article, reservation) => grouped({ article, reservation });
}

function fitsOneTransaction(members: Member[]): boolean {
  const bytes = members.reduce((sum, { article }) => sum + JSON.stringify(article).length, 0);
  return bytes <= MAX_GROUP_BYTES;
}

/** True when every member was reserved in one transaction; false when it was cancelled. */
async function reserveTogether(
  client: DynamoDBDocumentClient,
  tables: GroupTables,
  members: Member[],
): Promise<boolean> {
  const first = members[0] as Member;
  const { accountId } = first.article;
  const { day } = first.reservation;
  const count = members.length;
  // The lowest limit any member read: a group is never let past a limit one of them saw.
  const dailyLimit = Math.min(...members.map(({ reservation }) => reservation.dailyLimit));
  if (dailyLimit < count) return false;
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
  return transactWithRetry<boolean>(
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
    true,
    // Any condition that did not hold: each member finds out alone what it gets.
    (codes) => (codes.some((_, index) => conditionFailed(codes, index)) ? { result: false } : undefined),
  );
}
