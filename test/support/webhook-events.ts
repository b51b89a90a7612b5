/** Recording a webhook event in tests as the stores' outbox does: stored with its body, then sent. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { newEventPut } from '../../functions/adapters/dynamodb/webhook-repository';
import {
  eventResendAt,
  eventWithBody,
  newEvent,
  sendRecordedEvent,
  type WebhookDeliveryDeps,
} from '../../functions/core/webhooks/deliver-webhooks';
import type { WebhookEvent, WebhookEventType } from '../../functions/core/webhooks/webhook';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import { FakeWebhookStore } from './fakes/fake-webhooks';

/**
 * Stores the event alone, as the outbox item a store's transaction writes: in the fake store, or
 * with the outbox's own Put in the webhooks table (production writes it only inside a change's
 * transaction).
 */
async function storeEvent(deps: WebhookDeliveryDeps, event: WebhookEvent): Promise<void> {
  if (deps.webhooks instanceof FakeWebhookStore) {
    await deps.webhooks.putEvent(event, eventResendAt(event));
    return;
  }
  const table = process.env.WEBHOOKS_TABLE;
  if (!table) throw new Error('WEBHOOKS_TABLE is not set: provision the test resources first');
  await dynamoDocumentClient().send(new PutCommand(newEventPut(table, event, eventResendAt(event))));
}

/** The event's id, or undefined when no endpoint of the account wants `type`. `data` is its record. */
export async function recordEvent(
  deps: WebhookDeliveryDeps,
  accountId: string,
  type: WebhookEventType,
  data: () => Promise<unknown>,
): Promise<string | undefined> {
  const staged = await newEvent(deps, accountId, type, { kind: 'article', uuid: 'subject' });
  if (!staged) return undefined;
  const event = eventWithBody(staged, await data());
  await storeEvent(deps, event);
  await sendRecordedEvent(deps, event);
  return event.eventId;
}
