/** Accounts, credits and API tokens. Tokens are 256-bit random and stored only as SHA-256. */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { malformedAuthorizationHint } from './authentication-hints';
import { CONTROL_CHARACTER } from './control-characters';
import { NotFoundError, UnauthenticatedError, ValidationError } from './errors';
import { safeText } from './text';

/**
 * Largest balance an account may hold: 15 digits, so that every balance (and every sum with a
 * refund) stays an exact JavaScript number (DynamoDB keeps larger ones, which the SDK then reads
 * as BigInt, and a record with one could not be shown).
 */
export const MAX_CREDITS = 999_999_999_999_999;
export const MAX_ACCOUNT_NAME_LENGTH = 200;

export interface Account {
  accountId: string;
  name: string;
  credits: number;
  dailyLimit: number;
  /** Number of generated articles; the dense sequence behind article-list pagination. */
  generatedCount: number;
  createdAt: string;
}

export interface ApiTokenRecord {
  tokenHash: string;
  accountId: string;
  createdAt: string;
  revokedAt?: string;
}

export interface AccountStore {
  create(account: Account): Promise<void>;
  get(accountId: string): Promise<Account | undefined>;
  /**
   * Adds credits atomically unless the balance would pass `maxBalance` (then undefined, nothing
   * changed); throws NotFoundError for an unknown account.
   */
  addCredits(accountId: string, amount: number, maxBalance: number): Promise<Account | undefined>;
  /** Sets the daily generation limit; throws NotFoundError for an unknown account. */
  setDailyLimit(accountId: string, dailyLimit: number): Promise<Account>;
}

export interface TokenStore {
  put(record: ApiTokenRecord): Promise<void>;
  get(tokenHash: string): Promise<ApiTokenRecord | undefined>;
  /** Marks the token revoked; returns false when no such token exists. */
  revoke(tokenHash: string, revokedAt: string): Promise<boolean>;
}

export const DEFAULT_DAILY_LIMIT = 100;
const TOKEN_PREFIX = 'ink_';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function newToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export async function createAccount(
  deps: { accounts: AccountStore; tokens: TokenStore; now?: () => Date },
  input: { name: string; credits: number; dailyLimit?: number },
): Promise<{ account: Account; token: string }> {
  const name = input.name.trim();
  if (safeText(name) === '') throw ValidationError.forField('name', 'The name is required.');
  if (!name.isWellFormed() || CONTROL_CHARACTER.test(name) || name.includes('\uFFFD')) {
    throw ValidationError.forField('name', 'The name must be text without control characters.');
  }
  if (name.length > MAX_ACCOUNT_NAME_LENGTH) {
    throw ValidationError.forField(
      'name',
      `The name may not be longer than ${MAX_ACCOUNT_NAME_LENGTH} characters.`,
    );
  }
  assertWholeNumber('credits', input.credits, 0);
  if (input.credits > MAX_CREDITS) {
    throw ValidationError.forField('credits', `The balance may not pass ${MAX_CREDITS} credits.`);
  }
  const dailyLimit = input.dailyLimit ?? DEFAULT_DAILY_LIMIT;
  assertWholeNumber('daily_limit', dailyLimit, 1);
  const createdAt = (deps.now?.() ?? new Date()).toISOString();
  const account: Account = {
    accountId: randomUUID(),
    name,
    credits: input.credits,
    dailyLimit,
    generatedCount: 0,
    createdAt,
  };
  await deps.accounts.create(account);
  const token = await issueToken(deps, account.accountId);
  return { account, token };
}

/** Creates a new token for an existing account; the plain token is returned once, never stored. */
export async function issueToken(
  deps: { accounts: AccountStore; tokens: TokenStore; now?: () => Date },
  accountId: string,
): Promise<string> {
  if (!(await deps.accounts.get(accountId))) throw new NotFoundError('Account');
  const token = newToken();
  await deps.tokens.put({
    tokenHash: hashToken(token),
    accountId,
    createdAt: (deps.now?.() ?? new Date()).toISOString(),
  });
  return token;
}

export async function revokeToken(
  deps: { tokens: TokenStore; now?: () => Date },
  token: string,
): Promise<void> {
  const revoked = await deps.tokens.revoke(
    hashToken(token.trim()),
    (deps.now?.() ?? new Date()).toISOString(),
  );
  if (!revoked) throw new NotFoundError('Token');
}

/** Maps an `Authorization` header value (`Bearer <token>`) to its account id. */
export async function authenticate(
  deps: { tokens: TokenStore },
  authorization: string | undefined,
): Promise<string> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const token = match?.[1];
  if (!token) throw new UnauthenticatedError(malformedAuthorizationHint(authorization));
  const record = await deps.tokens.get(hashToken(token));
  if (!record || record.revokedAt) throw new UnauthenticatedError();
  return record.accountId;
}

export async function addCredits(
  deps: { accounts: AccountStore },
  input: { accountId: string; amount: number },
): Promise<Account> {
  assertWholeNumber('amount', input.amount, 1);
  const account = await deps.accounts.addCredits(input.accountId, input.amount, MAX_CREDITS);
  if (!account) throw ValidationError.forField('amount', `The balance may not pass ${MAX_CREDITS} credits.`);
  return account;
}

/** The operator raises (or lowers) an account's daily limit, free of charge. */
export async function setDailyLimit(
  deps: { accounts: AccountStore },
  input: { accountId: string; dailyLimit: number },
): Promise<Account> {
  assertWholeNumber('daily_limit', input.dailyLimit, 1);
  return deps.accounts.setDailyLimit(input.accountId, input.dailyLimit);
}

function assertWholeNumber(field: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw ValidationError.forField(field, `The ${field} must be a whole number of at least ${min}.`);
  }
}
