import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Account, AccountStore } from '../../core/accounts';
import { NotFoundError } from '../../core/errors';
import { groupedCallsByKey } from '../../shared/grouped-calls';
import { conditionFailed } from './transactions';

/** Readers of one account that one read answers, at most. */
const MAX_READERS = 100;

export class DynamoAccountRepository implements AccountStore {
  /**
   * Reads of one account that arrive while one of it is in flight wait for it to end and then
   * share the next one (many requests of an account at once in one process: the local runtime).
   * That read starts after each of them arrived, so each sees every write done before it asked.
   */
  private readonly reads = groupedCallsByKey<string, Account | undefined>(
    (accountId) => accountId,
    async (accountIds) => {
      const account = await this.read(accountIds[0] as string);
      // Each reader its own copy.
      return accountIds.map(() => ({ value: account && structuredClone(account) }));
    },
    { maxGroup: MAX_READERS, inFlight: 1 },
  );

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

  get(accountId: string): Promise<Account | undefined> {
    return this.reads(accountId);
  }

  private async read(accountId: string): Promise<Account | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { accountId }, ConsistentRead: true }),
    );
    return Item as Account | undefined;
  }

  addCredits(accountId: string, amount: number, maxBalance: number): Promise<Account | undefined> {
    return this.update(accountId, 'ADD credits :value', amount, {
      condition: 'credits <= :ceiling',
      values: { ':ceiling': maxBalance - amount },
    });
  }

  async setDailyLimit(accountId: string, dailyLimit: number): Promise<Account> {
    return (await this.update(accountId, 'SET dailyLimit = :value', dailyLimit)) as Account;
  }

  /**
   * Updates an existing account; NotFoundError when there is none, undefined when the account
   * exists but `also` (a further condition) did not hold.
   */
  private async update(
    accountId: string,
    updateExpression: string,
    value: number,
    also?: { condition: string; values: Record<string, number> },
  ): Promise<Account | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { accountId },
          UpdateExpression: updateExpression,
          ConditionExpression: also
            ? `attribute_exists(accountId) AND ${also.condition}`
            : 'attribute_exists(accountId)',
          ExpressionAttributeValues: { ':value': value, ...also?.values },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as Account;
    } catch (error) {
      if (!conditionFailed(error)) throw error;
      if (!also || !(await this.get(accountId))) throw new NotFoundError('Account');
      return undefined;
    }
  }
}
