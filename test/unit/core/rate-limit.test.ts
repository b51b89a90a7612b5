import { TooManyRequestsError } from '../../../functions/core/errors';
import {
  clockSlackMs,
  enforceRateLimit,
  type RateLimitStore,
  retryAfterSeconds,
} from '../../../functions/core/rate-limit';

const policy = { ratePerSecond: 10, burst: 20 };

describe('enforceRateLimit', () => {
  it('throws TooManyRequestsError with the store’s Retry-After when the bucket is empty', async () => {
    const store: RateLimitStore = { take: async () => ({ allowed: false, retryAfterSeconds: 3 }) };
    const failure = await enforceRateLimit({ store, policy, onStoreFailure: () => undefined }, 'a1').catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TooManyRequestsError);
    expect((failure as TooManyRequestsError).retryAfterSeconds).toBe(3);
  });

  it('lets the request through and reports it when the store fails (fail open)', async () => {
    const reported: unknown[] = [];
    const store: RateLimitStore = {
      take: async () => {
        throw new Error('ResourceNotFoundException');
      },
    };
    await expect(
      enforceRateLimit({ store, policy, onStoreFailure: (error) => reported.push(error) }, 'a1'),
    ).resolves.toBeUndefined();
    expect(reported).toHaveLength(1);
  });

  it('asks no store when the limit is off (rate 0)', async () => {
    const store: RateLimitStore = {
      take: async () => {
        throw new Error('must not be called');
      },
    };
    await expect(
      enforceRateLimit(
        { store, policy: { ratePerSecond: 0, burst: 1 }, onStoreFailure: () => undefined },
        'a1',
      ),
    ).resolves.toBeUndefined();
  });
});

describe('retryAfterSeconds', () => {
  it('is the whole seconds until one token is back, at least 1', () => {
    const now = 1_000_000;
    // 20 requests at once: tat = now + 2000 ms; the next token is free 100 ms later.
    expect(retryAfterSeconds(policy, now + 2000, now)).toBe(1);
    // One token every 20 s, bucket of 5, drained: 20 s to wait, less the clock slack (1 s).
    expect(retryAfterSeconds({ ratePerSecond: 0.05, burst: 5 }, now + 100_000, now)).toBe(19);
  });
});

describe('clockSlackMs', () => {
  it('is half a token interval, at most a second', () => {
    expect(clockSlackMs({ ratePerSecond: 10, burst: 20 })).toBe(50);
    expect(clockSlackMs({ ratePerSecond: 0.05, burst: 5 })).toBe(1000);
  });
});
