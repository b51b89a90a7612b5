/** One conditional UpdateItem, answered as a boolean (with a webhook event in its transaction, `updateWithEvent`). */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventOutbox, StagedEvent } from './event-outbox';
import { conditionFailed, transactWithRetry } from './transactions';

export interface ConditionalUpdate {
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

/** Applies `update` to the item at `key`; false when its condition did not hold. */
export async function updateIfCondition(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, unknown>,
  update: ConditionalUpdate,
): Promise<boolean> {
  try {
    await client.send(new UpdateCommand({ TableName: tableName, Key: key, ...update }));
    return true;
  } catch (error) {
    if (conditionFailed(error)) return false;
    throw error;
  }
}

/**
 * `updateIfCondition` that also stores `event` (staged by `outbox`) in the same transaction,
 * then sends it; without an event, the plain update.
 */
export async function updateWithEvent(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, unknown>,
  update: ConditionalUpdate,
  outbox: EventOutbox | undefined,
  event: StagedEvent | undefined,
): Promise<boolean> {
  if (!outbox || !event) return updateIfCondition(client, tableName, key, update);
  const updated = await transactWithRetry<boolean>(
    client,
    async () => ({ TransactItems: [{ Update: { TableName: tableName, Key: key, ...update } }, event.put] }),
    true,
    (codes) => (conditionFailed(codes, 0) ? { result: false } : undefined),
  );
  if (updated) await outbox.committed(event);
  return updated;
}
