/** Query helpers shared by the repositories, on lib-dynamodb's `paginateQuery`. */
import { type DynamoDBDocumentClient, paginateQuery, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

type Item = Record<string, unknown>;

/** Every item a query matches (from its `ExclusiveStartKey`, if any). */
export async function queryAll(client: DynamoDBDocumentClient, query: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of paginateQuery({ client }, { ...query })) items.push(...(page.Items ?? []));
  return items;
}

/** The first `limit` items a query matches (from its `ExclusiveStartKey`, if any). */
export async function queryFirst(
  client: DynamoDBDocumentClient,
  query: QueryCommandInput,
  limit: number,
): Promise<Item[]> {
  const items: Item[] = [];
  if (limit <= 0) return items;
  for await (const page of paginateQuery({ client, pageSize: limit }, { ...query })) {
    items.push(...(page.Items ?? []));
    if (items.length >= limit) break;
  }
  return items.slice(0, limit);
}

/** Counts what a query matches (from its `ExclusiveStartKey`, if any) without reading the items. */
export async function countQuery(client: DynamoDBDocumentClient, query: QueryCommandInput): Promise<number> {
  let total = 0;
  for await (const page of paginateQuery({ client }, { ...query, Select: 'COUNT' })) total += page.Count ?? 0;
  return total;
}
