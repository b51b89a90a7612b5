import { DynamoWebhookRepository } from '../adapters/dynamodb/webhook-repository';
import type { WebhookStore } from '../core/webhooks/ports';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';

/** Webhook endpoints, events and deliveries. */
export function webhookStore(config: Config): WebhookStore {
  return new DynamoWebhookRepository(dynamoDocumentClient(), config.tables.webhooks);
}
