/**
 * The composition root: each port's production implementation, created once per process on
 * first use (after the environment is set, which lets tests point it at emulators).
 */
import type { AccountStore, TokenStore } from '../core/accounts';
import { dynamoDocumentClient } from '../shared/aws-clients';
import { DynamoAccountRepository } from './dynamodb/account-repository';
import { DynamoApiTokenRepository } from './dynamodb/api-token-repository';
import { tableNameOf } from './dynamodb/table-names';

function once<T>(create: () => T): () => T {
  let instance: T | undefined;
  return () => {
    instance ??= create();
    return instance;
  };
}

export const accountStore = once<AccountStore>(
  () => new DynamoAccountRepository(dynamoDocumentClient(), tableNameOf('accounts')),
);

export const tokenStore = once<TokenStore>(
  () => new DynamoApiTokenRepository(dynamoDocumentClient(), tableNameOf('apiTokens')),
);
