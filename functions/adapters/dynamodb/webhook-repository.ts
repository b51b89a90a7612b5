/**
 * Webhooks in one table keyed by account: the endpoints (with a counter item that caps them),
 * the events (the outbox), one delivery per event and endpoint, and the attempts. Events and
 * deliveries the sweeper must send again are in the sparse `sweep` index until done; events,
 * deliveries and attempts expire after WEBHOOK_HISTORY_DAYS.
 */
import { createHash } from 'node:crypto';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { DeliveryKey, EventKey, WebhookStore } from '../../core/webhooks/ports';
import {
  type DeliveryAttempt,
  WEBHOOK_HISTORY_DAYS,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEvent,
} from '../../core/webhooks/webhook';
import { queryFirst } from './reads';
import { WEBHOOK_INDEX } from './table-definitions';
import { conditionFailed, transactWithRetry } from './transactions';

type Item = Record<string, unknown>;

export const webhookKeys = {
  endpoint: (accountId: string, webhookUuid: string) => ({ accountId, itemKey: `endpoint#${webhookUuid}` }),
  /** Counts the account's endpoints, so a create can be refused atomically past the cap. */
  counter: (accountId: string) => ({ accountId, itemKey: 'endpoints' }),
  event: (accountId: string, eventId: string) => ({ accountId, itemKey: `event#${eventId}` }),
  delivery: ({ accountId, eventId, webhookUuid }: DeliveryKey) => ({
    accountId,
    itemKey: `delivery#${eventId}#${webhookUuid}`,
  }),
  /** Newest-first per endpoint by sorting on the attempt time. */
  attempt: (attempt: DeliveryAttempt) => ({
    accountId: attempt.accountId,
    itemKey: `attempt#${attempt.webhookUuid}#${attempt.attemptedAt}#${attempt.eventId}#${String(attempt.attempt).padStart(2, '0')}`,
  }),
};

/** Partitions of the sweep index per kind, by event id. */
const SWEEP_SHARDS = 4;
function sweepBucket(kind: 'event' | 'delivery', eventId: string): string {
  const shard = createHash('sha256').update(eventId).digest()[0] ?? 0;
  return `webhook-${kind}#${shard % SWEEP_SHARDS}`;
}

const INTERNAL = ['itemKey', 'sweepBucket', 'sweepAt', 'expiresAt'] as const;

export class DynamoWebhookRepository implements WebhookStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createEndpoint(endpoint: WebhookEndpoint, max: number): Promise<boolean> {
    return transactWithRetry<boolean>(
      this.client,
      async () => ({
        TransactItems: [
          {
            Update: {
              TableName: this.tableName,
              Key: webhookKeys.counter(endpoint.accountId),
              UpdateExpression: 'SET endpointCount = if_not_exists(endpointCount, :zero) + :one',
              ConditionExpression: 'attribute_not_exists(endpointCount) OR endpointCount < :max',
              ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': max },
            },
          },
          {
            Put: {
              TableName: this.tableName,
              Item: { ...endpoint, ...webhookKeys.endpoint(endpoint.accountId, endpoint.webhookUuid) },
              ConditionExpression: 'attribute_not_exists(itemKey)',
            },
          },
        ],
      }),
      true,
      (codes) => (conditionFailed(codes, 0) ? { result: false } : undefined),
    );
  }

  async getEndpoint(accountId: string, webhookUuid: string): Promise<WebhookEndpoint | undefined> {
    return this.getItem<WebhookEndpoint>(webhookKeys.endpoint(accountId, webhookUuid));
  }

  async listEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'accountId = :accountId AND begins_with(itemKey, :prefix)',
        ExpressionAttributeValues: { ':accountId': accountId, ':prefix': 'endpoint#' },
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => withoutInternal<WebhookEndpoint>(item));
  }

  async deleteEndpoint(accountId: string, webhookUuid: string): Promise<WebhookEndpoint | undefined> {
    const endpoint = await this.getEndpoint(accountId, webhookUuid);
    if (!endpoint) return undefined;
    const deleted = await transactWithRetry<boolean>(
      this.client,
      async () => ({
        TransactItems: [
          {
            Delete: {
              TableName: this.tableName,
              Key: webhookKeys.endpoint(accountId, webhookUuid),
              ConditionExpression: 'attribute_exists(itemKey)',
            },
          },
          {
            Update: {
              TableName: this.tableName,
              Key: webhookKeys.counter(accountId),
              UpdateExpression: 'ADD endpointCount :minusOne',
              ExpressionAttributeValues: { ':minusOne': -1 },
            },
          },
        ],
      }),
      true,
      (codes) => (conditionFailed(codes, 0) ? { result: false } : undefined),
    );
    return deleted ? endpoint : undefined;
  }

  async disableEndpoint(accountId: string, webhookUuid: string, at: string, reason: string): Promise<void> {
    await this.updateIf(webhookKeys.endpoint(accountId, webhookUuid), {
      UpdateExpression: 'SET disabledAt = :at, disabledReason = :reason',
      ConditionExpression: 'attribute_exists(itemKey)',
      ExpressionAttributeValues: { ':at': at, ':reason': reason },
    });
  }

  async enableEndpoint(accountId: string, webhookUuid: string): Promise<WebhookEndpoint | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookKeys.endpoint(accountId, webhookUuid),
          UpdateExpression: 'REMOVE disabledAt, disabledReason, failingSince',
          ConditionExpression: 'attribute_exists(itemKey)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? withoutInternal<WebhookEndpoint>(Attributes) : undefined;
    } catch (error) {
      if (conditionFailed(error)) return undefined;
      throw error;
    }
  }

  async markFailing(accountId: string, webhookUuid: string, at: string): Promise<void> {
    await this.updateIf(webhookKeys.endpoint(accountId, webhookUuid), {
      UpdateExpression: 'SET failingSince = :at',
      ConditionExpression: 'attribute_exists(itemKey) AND attribute_not_exists(failingSince)',
      ExpressionAttributeValues: { ':at': at },
    });
  }

  async markHealthy(accountId: string, webhookUuid: string): Promise<void> {
    await this.updateIf(webhookKeys.endpoint(accountId, webhookUuid), {
      UpdateExpression: 'REMOVE failingSince',
      ConditionExpression: 'attribute_exists(itemKey) AND attribute_exists(failingSince)',
    });
  }

  rotateSecret(
    accountId: string,
    webhookUuid: string,
    ciphertext: string,
    previous: { ciphertext: string; until: string },
  ): Promise<boolean> {
    return this.updateIf(webhookKeys.endpoint(accountId, webhookUuid), {
      UpdateExpression:
        'SET secretCiphertext = :new, previousSecretCiphertext = :previous, previousSecretUntil = :until',
      ConditionExpression: 'attribute_exists(itemKey) AND secretCiphertext = :previous',
      ExpressionAttributeValues: {
        ':new': ciphertext,
        ':previous': previous.ciphertext,
        ':until': previous.until,
      },
    });
  }

  async getEvent(accountId: string, eventId: string): Promise<WebhookEvent | undefined> {
    return this.getItem<WebhookEvent>(webhookKeys.event(accountId, eventId));
  }

  async markDispatched(accountId: string, eventId: string, at: string): Promise<void> {
    await this.updateIf(webhookKeys.event(accountId, eventId), {
      UpdateExpression: 'SET dispatchedAt = :at REMOVE sweepBucket, sweepAt',
      ConditionExpression: 'attribute_exists(itemKey)',
      ExpressionAttributeValues: { ':at': at },
    });
  }

  async postponeResend(
    kind: 'event' | 'delivery',
    key: EventKey | DeliveryKey,
    resendAt: string,
  ): Promise<void> {
    const itemKey =
      kind === 'event'
        ? webhookKeys.event(key.accountId, key.eventId)
        : webhookKeys.delivery(key as DeliveryKey);
    await this.updateIf(itemKey, {
      UpdateExpression: 'SET sweepAt = :at',
      ConditionExpression: 'attribute_exists(sweepBucket) AND sweepAt < :at',
      ExpressionAttributeValues: { ':at': resendAt },
    });
  }

  async ensureDelivery(delivery: WebhookDelivery, resendAt: string): Promise<WebhookDelivery> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...delivery,
            ...webhookKeys.delivery(delivery),
            sweepBucket: sweepBucket('delivery', delivery.eventId),
            sweepAt: resendAt,
            expiresAt: expiresAt(delivery.createdAt),
          },
          ConditionExpression: 'attribute_not_exists(itemKey)',
        }),
      );
      return delivery;
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
    const stored = await this.getDelivery(delivery);
    if (!stored) throw new Error(`Delivery ${delivery.eventId} to ${delivery.webhookUuid} vanished`);
    return stored;
  }

  async getDelivery(key: DeliveryKey): Promise<WebhookDelivery | undefined> {
    return this.getItem<WebhookDelivery>(webhookKeys.delivery(key));
  }

  async leaseDelivery(
    delivery: WebhookDelivery,
    owner: string,
    now: string,
    leaseUntil: string,
  ): Promise<boolean> {
    return this.updateIf(webhookKeys.delivery(delivery), {
      UpdateExpression: 'SET leaseOwner = :owner, leaseUntil = :until, sweepAt = :until',
      ConditionExpression:
        '#state = :pending AND attempts = :attempts AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':owner': owner,
        ':until': leaseUntil,
        ':pending': 'pending',
        ':attempts': delivery.attempts,
        ':now': now,
      },
    });
  }

  async scheduleRetry(
    delivery: WebhookDelivery,
    owner: string,
    attempts: number,
    nextAttemptAt: string,
    resendAt: string,
  ): Promise<void> {
    await this.updateIf(webhookKeys.delivery(delivery), {
      UpdateExpression:
        'SET attempts = :attempts, nextAttemptAt = :next, sweepAt = :resendAt REMOVE leaseOwner, leaseUntil',
      ConditionExpression: 'leaseOwner = :owner',
      ExpressionAttributeValues: {
        ':attempts': attempts,
        ':next': nextAttemptAt,
        ':resendAt': resendAt,
        ':owner': owner,
      },
    });
  }

  async finishDelivery(
    delivery: WebhookDelivery,
    owner: string | undefined,
    state: 'succeeded' | 'failed',
    attempts: number,
  ): Promise<void> {
    await this.updateIf(webhookKeys.delivery(delivery), {
      UpdateExpression:
        'SET #state = :state, attempts = :attempts REMOVE nextAttemptAt, leaseOwner, leaseUntil, sweepBucket, sweepAt',
      ConditionExpression: owner ? 'leaseOwner = :owner' : '#state = :pending',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':state': state,
        ':attempts': attempts,
        ...(owner ? { ':owner': owner } : { ':pending': 'pending' }),
      },
    });
  }

  async recordAttempt(attempt: DeliveryAttempt): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...attempt, ...webhookKeys.attempt(attempt), expiresAt: expiresAt(attempt.attemptedAt) },
      }),
    );
  }

  async listAttempts(accountId: string, webhookUuid: string, limit: number): Promise<DeliveryAttempt[]> {
    const items = await queryFirst(
      this.client,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'accountId = :accountId AND begins_with(itemKey, :prefix)',
        ExpressionAttributeValues: { ':accountId': accountId, ':prefix': `attempt#${webhookUuid}#` },
        ScanIndexForward: false,
      },
      limit,
    );
    return items.map((item) => withoutInternal<DeliveryAttempt>(item));
  }

  async listDue(
    kind: 'event' | 'delivery',
    dueBy: string,
    limit: number,
  ): Promise<(EventKey | DeliveryKey)[]> {
    const pages = await Promise.all(
      Array.from({ length: SWEEP_SHARDS }, (_, shard) =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: WEBHOOK_INDEX.sweep,
            KeyConditionExpression: 'sweepBucket = :bucket AND sweepAt <= :dueBy',
            ExpressionAttributeValues: { ':bucket': `webhook-${kind}#${shard}`, ':dueBy': dueBy },
            Limit: limit,
          }),
        ),
      ),
    );
    return pages
      .flatMap(({ Items }) => Items ?? [])
      .sort((a, b) => String(a.sweepAt).localeCompare(String(b.sweepAt)))
      .slice(0, limit)
      .map((item) =>
        kind === 'event'
          ? { accountId: String(item.accountId), eventId: String(item.eventId) }
          : {
              accountId: String(item.accountId),
              eventId: String(item.eventId),
              webhookUuid: String(item.webhookUuid),
            },
      );
  }

  private async getItem<T>(key: Item): Promise<T | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item ? withoutInternal<T>(Item) : undefined;
  }

  /** One conditional update; false when the condition did not hold. */
  private async updateIf(
    key: Item,
    update: Pick<
      UpdateCommandInput,
      'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
    >,
  ): Promise<boolean> {
    try {
      await this.client.send(new UpdateCommand({ TableName: this.tableName, Key: key, ...update }));
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }
}

/**
 * The Put that stores a new event (the outbox item), alone or in the transaction of the change
 * it reports; `resendAt` is when the sweeper sends it again if it was never dispatched.
 */
export function newEventPut(tableName: string, event: WebhookEvent, resendAt: string) {
  return {
    TableName: tableName,
    Item: {
      ...event,
      ...webhookKeys.event(event.accountId, event.eventId),
      sweepBucket: sweepBucket('event', event.eventId),
      sweepAt: resendAt,
      expiresAt: expiresAt(event.createdAt),
    },
    ConditionExpression: 'attribute_not_exists(itemKey)',
  };
}

function expiresAt(from: string): number {
  return Math.floor(Date.parse(from) / 1000) + WEBHOOK_HISTORY_DAYS * 86_400;
}

function withoutInternal<T>(item: Item): T {
  const copy = { ...item };
  for (const name of INTERNAL) delete copy[name];
  return copy as T;
}
