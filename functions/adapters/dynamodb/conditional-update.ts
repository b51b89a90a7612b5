/** One conditional UpdateItem, answered as a boolean: the article and publication stores share it. */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionFailed } from './transactions';

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
