/**
 * Page N of the queue listing at the cost of page 1. Each article entering the queue takes the
 * account's next queue number (`queueSeq`, in order of creation); the queue index sorts by it.
 * Articles leave the queue from anywhere (generated, cancelled), so the numbers have holes;
 * counters say how many members each range of numbers holds: the account's directory item
 * counts per 1,024 numbers, one item per such range counts per 32. Finding where page N starts
 * reads those two items, then one Query of at most 31 + 20 entries, whatever N. The counters
 * change in the transactions that add an article to the queue or take it out.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateScan,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ARTICLE_INDEX } from './table-definitions';
import { transactWithRetry } from './transactions';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Queue numbers per block (counted in the range item) and per range (counted in the directory). */
const BLOCK = 32;
const RANGE = 1024;
/** Sort keys of numbered entries start with this; entries stored before numbering do not. */
const NUMBERED = 'q#';

/** Counter items live beside the articles under keys no article uuid can take. */
const directoryKey = (accountId: string) => ({ accountId, articleUuid: 'queue#directory' });
const rangeKey = (accountId: string, range: number) => ({ accountId, articleUuid: `queue#range#${range}` });

/** The queue index's sort key of an entry: its number, zero-padded so that text order is number order. */
export function queueSortKeyOf(queueSeq: number): string {
  return `${NUMBERED}${String(queueSeq).padStart(15, '0')}`;
}

/** Takes the account's next queue number (numbers never taken by a stored article are holes, harmless). */
export async function takeQueueSeq(
  client: DynamoDBDocumentClient,
  tableName: string,
  accountId: string,
): Promise<number> {
  const { Attributes } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: directoryKey(accountId),
      UpdateExpression: 'ADD nextSeq :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.nextSeq);
}

/**
 * Takes `count` consecutive queue numbers at once (a batch's items, in order): the first of them.
 */
export async function takeQueueSeqs(
  client: DynamoDBDocumentClient,
  tableName: string,
  accountId: string,
  count: number,
): Promise<number> {
  const { Attributes } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: directoryKey(accountId),
      UpdateExpression: 'ADD nextSeq :count',
      ExpressionAttributeValues: { ':count': count },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.nextSeq) - count + 1;
}

/**
 * The counter changes of `count` entries numbered `firstSeq..` joining the queue, for one
 * transaction: the directory's ranges in one update, one update per range item (a batch of 500
 * touches at most two).
 */
export function queueCountUpdatesOfRun(
  tableName: string,
  accountId: string,
  firstSeq: number,
  count: number,
): TransactItem[] {
  const ranges = new Map<number, Map<number, number>>();
  for (let seq = firstSeq; seq < firstSeq + count; seq++) {
    const range = Math.floor(seq / RANGE);
    const block = Math.floor((seq % RANGE) / BLOCK);
    const blocks = ranges.get(range) ?? new Map<number, number>();
    blocks.set(block, (blocks.get(block) ?? 0) + 1);
    ranges.set(range, blocks);
  }
  const added = (counts: Map<number, number>, prefix: string) => {
    const entries = [...counts.entries()];
    return {
      UpdateExpression: `ADD ${entries.map((_, index) => `#n${index} :v${index}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(
        entries.map(([at], index) => [`#n${index}`, `${prefix}${at}`]),
      ),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, n], index) => [`:v${index}`, n])),
    };
  };
  const perRange = new Map(
    [...ranges.entries()].map(([range, blocks]) => [range, [...blocks.values()].reduce((a, b) => a + b, 0)]),
  );
  return [
    { Update: { TableName: tableName, Key: directoryKey(accountId), ...added(perRange, 'r') } },
    ...[...ranges.entries()].map(([range, blocks]) => ({
      Update: { TableName: tableName, Key: rangeKey(accountId, range), ...added(blocks, 'b') },
    })),
  ];
}

/** The counter changes of one entry joining (+1) or leaving (-1) the queue, for its transaction. */
export function queueCountUpdates(
  tableName: string,
  accountId: string,
  queueSeq: number,
  delta: 1 | -1,
): TransactItem[] {
  const range = Math.floor(queueSeq / RANGE);
  const block = Math.floor((queueSeq % RANGE) / BLOCK);
  return [
    {
      Update: {
        TableName: tableName,
        Key: directoryKey(accountId),
        UpdateExpression: 'ADD #range :delta',
        ExpressionAttributeNames: { '#range': `r${range}` },
        ExpressionAttributeValues: { ':delta': delta },
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: rangeKey(accountId, range),
        UpdateExpression: 'ADD #block :delta',
        ExpressionAttributeNames: { '#block': `b${block}` },
        ExpressionAttributeValues: { ':delta': delta },
      },
    },
  ];
}

/**
 * Where the entries `offset..` (newest first) start: the highest sort key to read from and how
 * many entries to skip there (fewer than 32); `start` is undefined past the end.
 */
export async function locateQueueOffset(
  client: DynamoDBDocumentClient,
  tableName: string,
  accountId: string,
  offset: number,
): Promise<{ total: number; start?: { highestKey: string; skip: number } }> {
  for (let attempt = 1; ; attempt++) {
    const directory = await getCounts(client, tableName, directoryKey(accountId), 'r');
    const total = [...directory.values()].reduce((sum, count) => sum + count, 0);
    if (offset >= total) return { total };
    // offset < total: the directory's counts reach it.
    const found = descend(directory, offset) ?? { index: 0, skip: offset };
    const blocks = await getCounts(client, tableName, rangeKey(accountId, found.index), 'b');
    const inRange = descend(blocks, found.skip);
    if (inRange) {
      const highestSeq = found.index * RANGE + (inRange.index + 1) * BLOCK - 1;
      return { total, start: { highestKey: queueSortKeyOf(highestSeq), skip: inRange.skip } };
    }
    // An entry left the range between the two reads (generated, cancelled): read both again.
    // Past a few tries under such churn, an empty page rather than an error.
    if (attempt === LOCATE_ATTEMPTS) return { total };
  }
}

/** Reads of the two counter items before a listing gives up on a queue that keeps changing. */
const LOCATE_ATTEMPTS = 5;

/** The key condition of numbered entries up to `highestKey`, newest first. */
export function numberedEntriesUpTo(accountId: string, highestKey: string) {
  return {
    IndexName: ARTICLE_INDEX.queue,
    KeyConditionExpression: 'accountId = :accountId AND queueSortKey BETWEEN :numbered AND :highest',
    ExpressionAttributeValues: { ':accountId': accountId, ':numbered': NUMBERED, ':highest': highestKey },
    ScanIndexForward: false,
  };
}

/**
 * Numbers the queue entries stored before numbering (their sort key is `createdAt#uuid`), oldest
 * first per account, and counts them. Run by the local provisioning on an existing table before
 * anything else writes to it; returns how many entries it numbered.
 */
export async function backfillQueuePositions(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<number> {
  const legacy: { accountId: string; articleUuid: string; queueSortKey: string }[] = [];
  const pages = paginateScan(
    { client },
    {
      TableName: tableName,
      FilterExpression: 'attribute_exists(queueSortKey) AND NOT begins_with(queueSortKey, :numbered)',
      ExpressionAttributeValues: { ':numbered': NUMBERED },
      ProjectionExpression: 'accountId, articleUuid, queueSortKey',
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      legacy.push({
        accountId: String(item.accountId),
        articleUuid: String(item.articleUuid),
        queueSortKey: String(item.queueSortKey),
      });
    }
  }
  legacy.sort((a, b) => a.queueSortKey.localeCompare(b.queueSortKey));
  let numbered = 0;
  for (const entry of legacy) {
    const queueSeq = await takeQueueSeq(client, tableName, entry.accountId);
    const done = await transactWithRetry<boolean>(
      client,
      async () => ({
        TransactItems: [
          {
            Update: {
              TableName: tableName,
              Key: { accountId: entry.accountId, articleUuid: entry.articleUuid },
              UpdateExpression: 'SET queueSeq = :seq, queueSortKey = :key',
              ConditionExpression: 'queueSortKey = :old',
              ExpressionAttributeValues: {
                ':seq': queueSeq,
                ':key': queueSortKeyOf(queueSeq),
                ':old': entry.queueSortKey,
              },
            },
          },
          ...queueCountUpdates(tableName, entry.accountId, queueSeq, 1),
        ],
      }),
      true,
      // Left the queue meanwhile: nothing to number.
      (codes) => (codes[0] === 'ConditionalCheckFailed' ? { result: false } : undefined),
    );
    if (done) numbered++;
  }
  return numbered;
}

/** Reads the counters `<prefix><n>` of one item as n -> count (zero counts left out). */
async function getCounts(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, string>,
  prefix: string,
): Promise<Map<number, number>> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  const counts = new Map<number, number>();
  for (const [name, value] of Object.entries(Item ?? {})) {
    const index = name.startsWith(prefix) ? Number(name.slice(prefix.length)) : Number.NaN;
    if (Number.isInteger(index) && Number(value) > 0) counts.set(index, Number(value));
  }
  return counts;
}

/**
 * From the highest index down: the one holding entry `offset`, and how many of it come before;
 * undefined when the counts do not reach `offset`.
 */
function descend(counts: Map<number, number>, offset: number): { index: number; skip: number } | undefined {
  let before = 0;
  for (const index of [...counts.keys()].sort((a, b) => b - a)) {
    const count = counts.get(index) ?? 0;
    if (before + count > offset) return { index, skip: offset - before };
    before += count;
  }
  return undefined;
}
