/**
 * Login attempts per counter (login-failures.ts), as items of the RateLimits table
 * (`login-failures#<key>`): a map of attempt id to its time, and a version. A reservation reads
 * its counters, drops attempts older than the window, and writes every counter back in one
 * transaction conditional on the versions it read, so parallel reservations cannot both see room
 * for one more; a release removes its attempt and moves the version on.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type {
  LoginAttemptCounter,
  LoginAttemptReservation,
  LoginAttemptStore,
} from '../../core/websites/login-failures';
import { updateIfCondition } from './conditional-update';
import { transactWithRetry } from './transactions';

interface CounterItem {
  attempts: Record<string, number>;
  version: number | undefined;
}

export class DynamoLoginFailureRepository implements LoginAttemptStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async reserve(
    counters: LoginAttemptCounter[],
    attemptId: string,
    now: Date,
    windowMs: number,
  ): Promise<LoginAttemptReservation> {
    const since = now.getTime() - windowMs;
    return transactWithRetry<LoginAttemptReservation>(
      this.client,
      async () => {
        const items = await Promise.all(counters.map((counter) => this.read(counter.key)));
        const recent = items.map((item) =>
          Object.fromEntries(Object.entries(item.attempts).filter(([, at]) => at > since)),
        );
        for (const [index, counter] of counters.entries()) {
          const times = Object.values(recent[index] ?? {}).sort((a, b) => a - b);
          if (times.length >= counter.limit) {
            const oldestCounted = times[times.length - counter.limit] ?? now.getTime();
            return {
              result: {
                granted: false,
                counter,
                attempts: times.length,
                freeAt: new Date(oldestCounted + windowMs),
              },
            };
          }
        }
        const expiresAt = Math.ceil((now.getTime() + windowMs) / 1000);
        return {
          TransactItems: counters.map((counter, index) => {
            const version = items[index]?.version;
            return {
              Put: {
                TableName: this.tableName,
                Item: {
                  ...keyOf(counter.key),
                  attempts: { ...recent[index], [attemptId]: now.getTime() },
                  version: (version ?? 0) + 1,
                  expiresAt,
                },
                ...(version === undefined
                  ? { ConditionExpression: 'attribute_not_exists(version)' }
                  : {
                      ConditionExpression: 'version = :version',
                      ExpressionAttributeValues: { ':version': version },
                    }),
              },
            };
          }),
        };
      },
      { granted: true },
      // Another reservation or release wrote a counter since it was read: read them again.
      (codes) => (codes.some((code) => code === 'ConditionalCheckFailed') ? 'retry' : undefined),
    );
  }

  async release(keys: string[], attemptId: string): Promise<void> {
    await Promise.all(
      keys.map((key) =>
        updateIfCondition(this.client, this.tableName, keyOf(key), {
          UpdateExpression: 'REMOVE attempts.#attempt SET version = version + :one',
          ConditionExpression: 'attribute_exists(attempts.#attempt)',
          ExpressionAttributeNames: { '#attempt': attemptId },
          ExpressionAttributeValues: { ':one': 1 },
        }),
      ),
    );
  }

  private async read(key: string): Promise<CounterItem> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keyOf(key), ConsistentRead: true }),
    );
    const attempts: Record<string, number> = {};
    for (const [id, at] of Object.entries((Item?.attempts ?? {}) as Record<string, unknown>)) {
      if (typeof at === 'number') attempts[id] = at;
    }
    return { attempts, version: typeof Item?.version === 'number' ? Item.version : undefined };
  }
}

const keyOf = (key: string) => ({ accountId: `login-failures#${key}` });
