import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiTokenRecord, TokenStore } from '../../core/accounts';
import { conditionFailed } from './transactions';

export class DynamoApiTokenRepository implements TokenStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(record: ApiTokenRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: record,
        ConditionExpression: 'attribute_not_exists(tokenHash)',
      }),
    );
  }

  async get(tokenHash: string): Promise<ApiTokenRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { tokenHash } }),
    );
    return Item as ApiTokenRecord | undefined;
  }

  async revoke(tokenHash: string, revokedAt: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { tokenHash },
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
          ConditionExpression: 'attribute_exists(tokenHash)',
          ExpressionAttributeValues: { ':at': revokedAt },
        }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }
}
