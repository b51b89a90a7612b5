/** Accounts and API tokens in memory. */
import type { Account, AccountStore, ApiTokenRecord, TokenStore } from '../../../functions/core/accounts';
import { NotFoundError } from '../../../functions/core/errors';
import { copy, type InMemoryTables } from './tables';

export class FakeAccountStore implements AccountStore {
  constructor(private readonly tables: InMemoryTables) {}

  async create(account: Account): Promise<void> {
    if (this.tables.accounts.has(account.accountId)) throw new Error('The account exists already.');
    this.tables.accounts.set(account.accountId, copy(account));
  }

  async get(accountId: string): Promise<Account | undefined> {
    const account = this.tables.accounts.get(accountId);
    return account ? copy(account) : undefined;
  }

  async addCredits(accountId: string, amount: number, maxBalance: number): Promise<Account | undefined> {
    const account = this.existing(accountId);
    if (account.credits + amount > maxBalance) return undefined;
    account.credits += amount;
    return copy(account);
  }

  async setDailyLimit(accountId: string, dailyLimit: number): Promise<Account> {
    const account = this.existing(accountId);
    account.dailyLimit = dailyLimit;
    return copy(account);
  }

  private existing(accountId: string): Account {
    const account = this.tables.accounts.get(accountId);
    if (!account) throw new NotFoundError('Account');
    return account;
  }
}

export class FakeTokenStore implements TokenStore {
  constructor(private readonly tables: InMemoryTables) {}

  async put(record: ApiTokenRecord): Promise<void> {
    this.tables.tokens.set(record.tokenHash, copy(record));
  }

  async get(tokenHash: string): Promise<ApiTokenRecord | undefined> {
    const record = this.tables.tokens.get(tokenHash);
    return record ? copy(record) : undefined;
  }

  async revoke(tokenHash: string, revokedAt: string): Promise<boolean> {
    const record = this.tables.tokens.get(tokenHash);
    if (!record) return false;
    record.revokedAt = revokedAt;
    return true;
  }
}
