import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { WebhookMessage, WebhookQueue } from '../../core/webhooks/ports';

/** The webhook queue: `event` messages (fan out) and `delivery` messages (one attempt), up to 10 per call. */
export class SqsWebhookQueue implements WebhookQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(messages: { message: WebhookMessage; delaySeconds?: number }[]): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      const chunk = messages.slice(start, start + 10);
      const { Failed } = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: chunk.map(({ message, delaySeconds }, index) => ({
            Id: String(index),
            MessageBody: JSON.stringify(message),
            ...(delaySeconds ? { DelaySeconds: Math.min(900, Math.max(0, Math.round(delaySeconds))) } : {}),
          })),
        }),
      );
      if (Failed && Failed.length > 0) {
        throw new Error(
          `${Failed.length} webhook message(s) could not be sent: ${Failed[0]?.Code ?? 'unknown'}`,
        );
      }
    }
  }
}
