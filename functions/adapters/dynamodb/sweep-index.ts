/** The sweep index of the articles table: what is due in one kind of work, across its shards. */
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Item } from './article-item';
import { type SweepBucket, sweepBucketsOf } from './keys';
import { ARTICLE_INDEX } from './table-definitions';

/**
 * The items of `kind` due by `dueBy`, oldest due first, at most `limit`: one Query per shard,
 * merged. `projection` must include `sweepAt` when given.
 */
export async function dueInSweepIndex(
  client: DynamoDBDocumentClient,
  tableName: string,
  kind: SweepBucket,
  dueBy: string,
  limit: number,
  projection?: string,
): Promise<Item[]> {
  const pages = await Promise.all(
    sweepBucketsOf(kind).map((bucket) =>
      client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: ARTICLE_INDEX.sweep,
          KeyConditionExpression: 'sweepBucket = :bucket AND sweepAt <= :dueBy',
          ExpressionAttributeValues: { ':bucket': bucket, ':dueBy': dueBy },
          ...(projection ? { ProjectionExpression: projection } : {}),
          Limit: limit,
        }),
      ),
    ),
  );
  return pages
    .flatMap(({ Items }) => Items ?? [])
    .sort((a, b) => String(a.sweepAt).localeCompare(String(b.sweepAt)))
    .slice(0, limit);
}
