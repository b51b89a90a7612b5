/**
 * The token buckets in DynamoDB, one item per account: `{accountId, tat, expiresAt}`. Each take
 * is one conditional UpdateItem, so concurrent requests in any number of Lambdas (or the local
 * server) share one bucket exactly. Two expressions cover the two states of a bucket (GCRA):
 * idle (`tat <= now`: `tat = now + interval`) and busy (`now < tat <= limit`:
 * `tat = tat + interval`). The state a bucket was last seen in picks the first try; a failed
 * condition returns the item, which tells the state for sure: over the limit (429) or the other
 * expression. So a request costs one call, two when its bucket just changed state.
 *
 * Requests of one account that arrive while its take is in flight (many at once in one process:
 * the local runtime) take their tokens together in one call when the bucket holds them all, and
 * otherwise each alone, as before, so exactly the burst goes through (shared/grouped-calls.ts).
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  latestAllowedTat,
  type RateDecision,
  type RateLimitPolicy,
  type RateLimitStore,
  retryAfterSeconds,
  tokenIntervalMs,
} from '../../core/rate-limit';
import { type GroupOutcome, groupedCallsByKey } from '../../shared/grouped-calls';
import { conditionFailed } from './transactions';

/** Buckets of idle accounts are removed by TTL this long after they are full again. */
const EXPIRY_SECONDS = 3600;
/** Last seen `tat` per account (a hint only), bounded. */
const MAX_HINTS = 10_000;

/** Requests whose tokens one call takes, at most. */
const MAX_TAKE_GROUP = 200;

type BucketState = 'idle' | 'busy';

interface Take {
  accountId: string;
  nowMs: number;
  policy: RateLimitPolicy;
}

export class DynamoRateLimitStore implements RateLimitStore {
  private readonly lastTat = new Map<string, number>();
  private readonly grouped = groupedCallsByKey<Take, RateDecision>(
    ({ accountId, policy }) => `${accountId}\n${policy.ratePerSecond}\n${policy.burst}`,
    (takes) => this.takeGroup(takes),
    { maxGroup: MAX_TAKE_GROUP, inFlight: 1 },
  );

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  take(accountId: string, nowMs: number, policy: RateLimitPolicy): Promise<RateDecision> {
    return this.grouped({ accountId, nowMs, policy });
  }

  /**
   * All the group's tokens in one call, at the earliest clock of the group (the strictest), when
   * the bucket holds them all; otherwise each request's own take, as if alone.
   */
  private async takeGroup(takes: Take[]): Promise<GroupOutcome<RateDecision>[]> {
    const [first] = takes;
    if (first && takes.length > 1) {
      const nowMs = Math.min(...takes.map((take) => take.nowMs));
      const together = await this.takeTokens(first.accountId, nowMs, first.policy, takes.length).catch(
        () => undefined,
      );
      if (together?.allowed) return takes.map(() => ({ value: { allowed: true } }));
    }
    return Promise.all(
      takes.map(({ accountId, nowMs, policy }) =>
        this.takeTokens(accountId, nowMs, policy, 1).then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
      ),
    );
  }

  /** Takes `tokens` tokens at once, as that many requests one after the other would, or none. */
  private async takeTokens(
    accountId: string,
    nowMs: number,
    policy: RateLimitPolicy,
    tokens: number,
  ): Promise<RateDecision> {
    const step = tokenIntervalMs(policy);
    // The last of the tokens must still be allowed.
    const limit = latestAllowedTat(policy, nowMs) - (tokens - 1) * step;
    if (limit < nowMs) return { allowed: false, retryAfterSeconds: 1 };
    const interval = tokens * step;
    const expiresAt = Math.ceil((nowMs + policy.burst * step) / 1000) + EXPIRY_SECONDS;
    let state: BucketState = (this.lastTat.get(accountId) ?? 0) > nowMs ? 'busy' : 'idle';
    // idle -> busy -> over the limit is the longest path: a tat only grows.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const tat = await this.update(accountId, state, { nowMs, interval, limit, expiresAt });
        this.remember(accountId, tat);
        return { allowed: true };
      } catch (error) {
        if (!conditionFailed(error)) throw error;
        const tat = tatOf(error.Item);
        if (tat === undefined || tat <= nowMs) {
          state = 'idle';
        } else if (tat > limit) {
          this.remember(accountId, tat);
          return { allowed: false, retryAfterSeconds: retryAfterSeconds(policy, tat, nowMs) };
        } else {
          state = 'busy';
        }
      }
    }
    // A group is never let through untaken: its requests then take their tokens one by one.
    return tokens === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: 1 };
  }

  /** One conditional update for a bucket in `state`; returns the new `tat`. */
  private async update(
    accountId: string,
    state: BucketState,
    values: { nowMs: number; interval: number; limit: number; expiresAt: number },
  ): Promise<number> {
    const idle = state === 'idle';
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { accountId },
        UpdateExpression: idle
          ? 'SET tat = :next, expiresAt = :expiresAt'
          : 'SET tat = tat + :interval, expiresAt = :expiresAt',
        ConditionExpression: idle
          ? 'attribute_not_exists(tat) OR tat <= :now'
          : 'tat > :now AND tat <= :limit',
        ExpressionAttributeValues: idle
          ? { ':next': values.nowMs + values.interval, ':now': values.nowMs, ':expiresAt': values.expiresAt }
          : {
              ':interval': values.interval,
              ':now': values.nowMs,
              ':limit': values.limit,
              ':expiresAt': values.expiresAt,
            },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return Number(Attributes?.tat);
  }

  private remember(accountId: string, tat: number): void {
    if (this.lastTat.size >= MAX_HINTS) this.lastTat.clear();
    this.lastTat.set(accountId, tat);
  }
}

/** The `tat` of the item a failed condition returned (raw attribute values, not unmarshalled). */
function tatOf(item: Record<string, { N?: string }> | undefined): number | undefined {
  const raw = item?.tat?.N;
  if (raw === undefined) return undefined;
  const tat = Number(raw);
  return Number.isFinite(tat) ? tat : undefined;
}
