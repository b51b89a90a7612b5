/**
 * The per-account rate limit every API handler applies once the authorizer has named the
 * account: the policy from the configuration, buckets in the RateLimits table.
 */
import { DynamoRateLimitStore } from '../../adapters/dynamodb/rate-limit-store';
import { enforceRateLimit } from '../../core/rate-limit';
import { dynamoDocumentClient } from '../../shared/aws/dynamodb';
import { type Config, declared } from '../../shared/config';
import { logger } from '../../shared/logger';

/** Throws TooManyRequestsError when the account is over its rate (see core/rate-limit.ts). */
export function accountRateLimit(config: Config): (accountId: string) => Promise<void> {
  const deps = {
    policy: declared(config.rateLimit, 'The RateLimits table'),
    store: new DynamoRateLimitStore(dynamoDocumentClient(), config.tables.rateLimits),
    onStoreFailure: (error: unknown) =>
      logger.warn('Rate limit store failed; request allowed', {
        error: error instanceof Error ? error : String(error),
      }),
  };
  return (accountId) => enforceRateLimit(deps, accountId);
}
