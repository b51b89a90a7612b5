/** Login failures per account, site and login, as items of the RateLimits table (`login-failures#<key>`). */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LoginFailureStore } from '../../core/websites/login-failures';
import { updateIfCondition } from './conditional-update';

export class DynamoLoginFailureRepository implements LoginFailureStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async current(key: string, now: Date) {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keyOf(key), ConsistentRead: true }),
    );
    const failures = Number(Item?.failures);
    const windowEndsAt = Number(Item?.windowEndsAt);
    if (!Number.isFinite(failures) || !Number.isFinite(windowEndsAt) || windowEndsAt <= now.getTime()) {
      return undefined;
    }
    return { failures, windowEndsAt: new Date(windowEndsAt) };
  }

  async record(key: string, now: Date, windowMs: number): Promise<void> {
    const counted = await updateIfCondition(this.client, this.tableName, keyOf(key), {
      UpdateExpression: 'SET failures = failures + :one',
      ConditionExpression: 'windowEndsAt > :now',
      ExpressionAttributeValues: { ':one': 1, ':now': now.getTime() },
    });
    if (counted) return;
    const windowEndsAt = now.getTime() + windowMs;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keyOf(key), failures: 1, windowEndsAt, expiresAt: Math.ceil(windowEndsAt / 1000) },
      }),
    );
  }
}

const keyOf = (key: string) => ({ accountId: `login-failures#${key}` });
