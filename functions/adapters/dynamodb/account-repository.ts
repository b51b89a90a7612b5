import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Account, AccountStore } from '../../core/accounts';
import { NotFoundError } from '../../core/errors';
import { conditionFailed } from './transactions';

export class DynamoAccountRepository implements AccountStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(account: Account): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: account,
        ConditionExpression: 'attribute_not_exists(accountId)',
      }),
    );
  }

  async get(accountId: string): Promise<Account | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { accountId }, ConsistentRead: true }),
    );
    return Item as Account | undefined;
  }

  async addCredits(accountId: string, amount: number, maxBalance: number): Promise<Account | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { accountId },
          UpdateExpression: 'ADD credits :amount',
          ConditionExpression: 'attribute_exists(accountId) AND credits <= :ceiling',
          ExpressionAttributeValues: { ':amount': amount, ':ceiling': maxBalance - amount },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as Account;
    } catch (error) {
      if (!conditionFailed(error)) throw error;
      if (!(await this.get(accountId))) throw new NotFoundError('Account');
      return undefined;
    }
  }

  setDailyLimit(accountId: string, dailyLimit: number): Promise<Account> {
    return this.update(accountId, 'SET dailyLimit = :value', dailyLimit);
  }

  private async update(accountId: string, updateExpression: string, value: number): Promise<Account> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { accountId },
          UpdateExpression: updateExpression,
          ConditionExpression: 'attribute_exists(accountId)',
          ExpressionAttributeValues: { ':value': value },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as Account;
    } catch (error) {
      if (conditionFailed(error)) throw new NotFoundError('Account');
      throw error;
    }
  }
}
