/** Accounts, tokens and usage: the DynamoDB repositories, made from the configuration. */

import { DynamoAccountRepository } from '../adapters/dynamodb/account-repository';
import { DynamoApiTokenRepository } from '../adapters/dynamodb/api-token-repository';
import { DynamoUsageRepository } from '../adapters/dynamodb/usage-repository';
import type { AccountStore, TokenStore } from '../core/accounts';
import type { UsageStore } from '../core/usage';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';

export function accountStore(config: Config): AccountStore {
  return new DynamoAccountRepository(dynamoDocumentClient(), config.tables.accounts);
}

export function tokenStore(config: Config): TokenStore {
  return new DynamoApiTokenRepository(dynamoDocumentClient(), config.tables.apiTokens);
}

export function usageStore(config: Config): UsageStore {
  return new DynamoUsageRepository(dynamoDocumentClient(), config.tables);
}
