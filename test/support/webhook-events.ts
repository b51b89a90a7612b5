/** Recording a webhook event in tests as the stores' outbox does: stored, then given its body and sent. */
import {
  eventResendAt,
  newEvent,
  sendRecordedEvent,
  type WebhookDeliveryDeps,
} from '../../functions/core/webhooks/deliver-webhooks';
import type { WebhookEventType } from '../../functions/core/webhooks/webhook';

/** The event's id, or undefined when no endpoint of the account wants `type`. `data` is its record. */
export async function recordEvent(
  deps: WebhookDeliveryDeps,
  accountId: string,
  type: WebhookEventType,
  data: () => Promise<unknown>,
): Promise<string | undefined> {
  const event = await newEvent(deps, accountId, type, { kind: 'article', uuid: 'subject' });
  if (!event) return undefined;
  await deps.webhooks.putEvent(event, eventResendAt(event));
  await sendRecordedEvent({ ...deps, describe: data }, event);
  return event.eventId;
}
