/**
 * Webhook events stored in the same DynamoDB transaction as the change they report (a
 * transactional outbox), so a process that dies right after the change cannot lose its event:
 * the stores that make reportable changes (generation, publication, website health) take one.
 *
 * `stage` answers the event's Put (none when no endpoint of the account wants the type; when
 * the endpoints cannot be read, the event is staged anyway rather than hold the change up); the
 * store adds it to its write and calls `committed` after the write succeeded, which writes the
 * body and sends the message. If that fails (logged) or its message is lost, the sweeper
 * finishes the event (`resendDueWebhooks`).
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  type EventRecordingDeps,
  eventResendAt,
  newEvent,
  sendRecordedEvent,
} from '../../core/webhooks/deliver-webhooks';
import type { EventSubject, WebhookEvent, WebhookEventType } from '../../core/webhooks/webhook';
import { logger } from '../../shared/logger';
import { newEventPut } from './webhook-repository';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface StagedEvent {
  event: WebhookEvent;
  /** The outbox item, to write in the transaction of the change. */
  put: TransactItem;
}

export class EventOutbox {
  constructor(
    private readonly tableName: string,
    private readonly deps: EventRecordingDeps,
  ) {}

  async stage(
    accountId: string,
    type: WebhookEventType,
    subject: EventSubject,
  ): Promise<StagedEvent | undefined> {
    const event = await newEvent(this.deps, accountId, type, subject);
    if (!event) return undefined;
    return { event, put: { Put: newEventPut(this.tableName, event, eventResendAt(event)) } };
  }

  /** After the write that carried `staged` committed: its body and message. Never throws. */
  async committed(staged: StagedEvent | undefined): Promise<void> {
    if (!staged) return;
    try {
      await sendRecordedEvent(this.deps, staged.event);
    } catch (error) {
      logger.warn('Could not send a stored webhook event; the sweeper sends it', {
        type: staged.event.type,
        eventId: staged.event.eventId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
