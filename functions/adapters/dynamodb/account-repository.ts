import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Account, AccountStore } from '../../core/accounts';
import { NotFoundError } from '../../core/errors';

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

  async addCredits(accountId: string, amount: number): Promise<Account> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { accountId },
          UpdateExpression: 'ADD credits :amount',
          ConditionExpression: 'attribute_exists(accountId)',
          ExpressionAttributeValues: { ':amount': amount },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as Account;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new NotFoundError('Account');
      throw error;
    }
  }
}
