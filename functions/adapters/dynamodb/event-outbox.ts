/**
 * Webhook events stored in the same DynamoDB transaction as the change they report (a
 * transactional outbox), body included, so a process that dies right after the change cannot
 * lose its event, and no later state of the record can reach it: the stores that make reportable
 * changes (generation, publication, outline review, website health) take one.
 *
 * `stage` (before the transaction: it reads the account's endpoints) answers the event, none when
 * no endpoint of the account wants the type (when the endpoints cannot be read, the event is
 * staged anyway rather than hold the change up). In the transaction's builder the store calls
 * `put` with the record as that transaction leaves it (event-records.ts), and after the commit
 * `committed`, which sends the event's message. If that fails (logged) or its message is lost,
 * the sweeper sends the stored event (`resendDueWebhooks`).
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  eventResendAt,
  eventWithBody,
  newEvent,
  sendRecordedEvent,
  type WebhookDeliveryDeps,
} from '../../core/webhooks/deliver-webhooks';
import type { EventPresenter, EventRecord } from '../../core/webhooks/ports';
import type { EventSubject, WebhookEvent, WebhookEventType } from '../../core/webhooks/webhook';
import { logger } from '../../shared/logger';
import { newEventPut } from './webhook-repository';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface EventOutboxDeps extends WebhookDeliveryDeps {
  /** The event's `data`: the record as `show` presents it. */
  present: EventPresenter;
  /** Told when the account's endpoints could not be read (the event is stored anyway). */
  onEndpointsUnknown?: (error: unknown) => void;
}

/** An event to store with a change: its outbox item is made from the record that change leaves. */
export class StagedEvent {
  constructor(
    private readonly tableName: string,
    private readonly deps: EventOutboxDeps,
    /** The event as last given its body by `put` (the transaction that committed used the last one). */
    public event: WebhookEvent,
  ) {}

  /** The outbox item, with `record` (as the change's transaction leaves it) as its body. */
  async put(record: EventRecord): Promise<TransactItem> {
    this.event = eventWithBody(this.event, await this.deps.present(record));
    return { Put: newEventPut(this.tableName, this.event, eventResendAt(this.event)) };
  }

  /** After the write that carried the event committed: its message. Never throws. */
  async committed(): Promise<void> {
    try {
      await sendRecordedEvent(this.deps, this.event);
    } catch (error) {
      logger.warn('Could not send a stored webhook event; the sweeper sends it', {
        type: this.event.type,
        eventId: this.event.eventId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

export class EventOutbox {
  constructor(
    private readonly tableName: string,
    private readonly deps: EventOutboxDeps,
  ) {}

  /** The event reporting a change to `subject`; undefined when no endpoint of the account wants it. */
  async stage(
    accountId: string,
    type: WebhookEventType,
    subject: EventSubject,
  ): Promise<StagedEvent | undefined> {
    const event = await newEvent(this.deps, accountId, type, subject);
    return event && new StagedEvent(this.tableName, this.deps, event);
  }
}
