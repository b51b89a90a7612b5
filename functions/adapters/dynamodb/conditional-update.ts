/** One conditional UpdateItem, answered as a boolean (with a webhook event in its transaction, `updateWithEvent`). */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventRecord } from '../../core/webhooks/ports';
import type { StagedEvent } from './event-outbox';
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
 * `updateIfCondition` that also stores `event` in the same transaction, its body the record
 * `after` answers for this update (read just before the transaction, event-records.ts), then
 * sends it; without an event, the plain update. False too when `after` finds no record.
 */
export async function updateWithEvent(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, unknown>,
  update: ConditionalUpdate,
  event: StagedEvent | undefined,
  after: (update: ConditionalUpdate) => Promise<EventRecord | undefined>,
): Promise<boolean> {
  if (!event) return updateIfCondition(client, tableName, key, update);
  const updated = await transactWithRetry<boolean>(
    client,
    async () => {
      const record = await after(update);
      if (!record) return { result: false };
      return {
        TransactItems: [{ Update: { TableName: tableName, Key: key, ...update } }, await event.put(record)],
      };
    },
    true,
    (codes) => (conditionFailed(codes, 0) ? { result: false } : undefined),
  );
  if (updated) await event.committed();
  return updated;
}
