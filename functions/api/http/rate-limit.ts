/**
 * The per-account rate limit every API handler applies once the authorizer has named the
 * account: settings from the environment (read once), buckets in the RateLimits table.
 */
import { DynamoRateLimitStore } from '../../adapters/dynamodb/rate-limit-store';
import { tableNameOf } from '../../adapters/dynamodb/table-names';
import { DEFAULT_RATE_LIMIT, enforceRateLimit, type RateLimitDeps } from '../../core/rate-limit';
import { dynamoDocumentClient } from '../../shared/aws-clients';
import { optionalEnv } from '../../shared/env';
import { logger } from '../../shared/logger';

let deps: RateLimitDeps | undefined;
let bucketStore: DynamoRateLimitStore | undefined;

/** A non-negative number from the environment; the default (with a warning) when unset or invalid. */
function numberSetting(name: string, fallback: number, minimum: number): number {
  const raw = optionalEnv(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (Number.isFinite(value) && value >= minimum) return value;
  logger.warn(`Ignoring ${name}: not a number >= ${minimum}; using ${fallback}`, { value: raw });
  return fallback;
}

function rateLimitDeps(): RateLimitDeps {
  deps ??= {
    policy: {
      ratePerSecond: numberSetting('INKPRESS_RATE_LIMIT_PER_SECOND', DEFAULT_RATE_LIMIT.ratePerSecond, 0),
      burst: numberSetting('INKPRESS_RATE_LIMIT_BURST', DEFAULT_RATE_LIMIT.burst, 1),
    },
    store: {
      // The table is looked up on first use, so a missing variable is a store failure (logged, fail open).
      take: (key, nowMs, policy) => {
        bucketStore ??= new DynamoRateLimitStore(dynamoDocumentClient(), tableNameOf('rateLimits'));
        return bucketStore.take(key, nowMs, policy);
      },
    },
    onStoreFailure: (error) =>
      logger.warn('Rate limit store failed; request allowed', {
        error: error instanceof Error ? error : String(error),
      }),
  };
  return deps;
}

/** Throws TooManyRequestsError when the account is over its rate (see core/rate-limit.ts). */
export function enforceAccountRateLimit(accountId: string): Promise<void> {
  return enforceRateLimit(rateLimitDeps(), accountId);
}
