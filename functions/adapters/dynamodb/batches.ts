/** BatchGetItem and BatchWriteItem over any number of keys or requests, for one table. */
import {
  BatchGetCommand,
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { backoff } from './transactions';

type Item = Record<string, unknown>;
type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** Calls per batch before giving up on what DynamoDB keeps leaving unprocessed (throttling). */
const MAX_ATTEMPTS = 10;
/**
 * Calls in flight at once for one list: a batch's 500 articles are 20 BatchWriteItems, which one
 * after the other took ~20 round trips (`npm run bench`, hot account). The entries of one list name
 * distinct items, so the order of the calls does not matter.
 */
const CALLS_IN_FLIGHT = 4;

/**
 * Sends `entries` in batches of `batchSize`, a few calls side by side; `send` makes one call and
 * answers what DynamoDB left unprocessed, which is sent again after a backoff. (lib-dynamodb's
 * `paginatedBatchGet` resends at once, without a backoff or a limit, and there is none for writes.)
 */
async function sendInBatches<T>(
  entries: T[],
  batchSize: number,
  send: (batch: T[]) => Promise<T[]>,
  failure: string,
): Promise<void> {
  const limit = pLimit(CALLS_IN_FLIGHT);
  const calls = [];
  for (let start = 0; start < entries.length; start += batchSize) {
    const batch = entries.slice(start, start + batchSize);
    calls.push(
      limit(async () => {
        let pending = batch;
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt >= MAX_ATTEMPTS) throw new Error(failure);
          if (attempt > 0) await backoff(attempt);
          pending = await send(pending);
        }
      }),
    );
  }
  // Every call ended before an error is told: no write of this list lands after it failed.
  const failed = (await Promise.allSettled(calls)).find(
    (call): call is PromiseRejectedResult => call.status === 'rejected',
  );
  if (failed) throw failed.reason;
}

/** Reads items by key (at most 100 a call); the order of the answer is not the order of the keys. */
export async function batchGet(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: Item[],
  /** Only these attributes (a ProjectionExpression with its names). */
  projection?: { expression: string; names: Record<string, string> },
): Promise<Item[]> {
  const items: Item[] = [];
  await sendInBatches(
    keys,
    100,
    async (batch) => {
      const { Responses, UnprocessedKeys } = await client.send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: {
              Keys: batch,
              ...(projection
                ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names }
                : {}),
            },
          },
        }),
      );
      items.push(...(Responses?.[tableName] ?? []));
      return (UnprocessedKeys?.[tableName]?.Keys as Item[] | undefined) ?? [];
    },
    `BatchGetItem on ${tableName} left keys unprocessed`,
  );
  return items;
}

/** Puts and deletes (at most 25 a call). */
export async function batchWrite(
  client: DynamoDBDocumentClient,
  tableName: string,
  requests: WriteRequest[],
  failure: string,
): Promise<void> {
  await sendInBatches(
    requests,
    25,
    async (batch) => {
      const { UnprocessedItems } = await client.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: batch } }),
      );
      return UnprocessedItems?.[tableName] ?? [];
    },
    failure,
  );
}
