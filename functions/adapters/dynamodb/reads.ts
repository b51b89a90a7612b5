/** Read helpers shared by the repositories. */
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { backoff } from './transactions';

type Item = Record<string, unknown>;

/** Keys per BatchGetItem call (the service maximum). */
const BATCH_SIZE = 100;
const MAX_ATTEMPTS = 10;

/** Reads items by key from one table in as few BatchGetItem calls as possible, unprocessed keys retried. */
export async function batchGet(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: Item[],
): Promise<Item[]> {
  const items: Item[] = [];
  for (let start = 0; start < keys.length; start += BATCH_SIZE) {
    let pending: Item[] = keys.slice(start, start + BATCH_SIZE);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt >= MAX_ATTEMPTS) throw new Error(`BatchGetItem on ${tableName} left keys unprocessed`);
      if (attempt > 0) await backoff(attempt);
      const { Responses, UnprocessedKeys } = await client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending } } }),
      );
      items.push(...(Responses?.[tableName] ?? []));
      pending = (UnprocessedKeys?.[tableName]?.Keys as Item[] | undefined) ?? [];
    }
  }
  return items;
}

/** Counts what a query matches (from its `ExclusiveStartKey`, if any) without reading the items. */
export async function countQuery(client: DynamoDBDocumentClient, query: QueryCommandInput): Promise<number> {
  let total = 0;
  let exclusiveStartKey = query.ExclusiveStartKey;
  do {
    const { Count, LastEvaluatedKey } = await client.send(
      new QueryCommand({ ...query, Select: 'COUNT', ExclusiveStartKey: exclusiveStartKey }),
    );
    total += Count ?? 0;
    exclusiveStartKey = LastEvaluatedKey;
  } while (exclusiveStartKey);
  return total;
}
