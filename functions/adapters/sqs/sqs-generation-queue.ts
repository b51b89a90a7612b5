import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { GenerationMessage, GenerationQueue } from '../../core/articles/ports';

export class SqsGenerationQueue implements GenerationQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(message: GenerationMessage): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify({ accountId: message.accountId, articleUuid: message.articleUuid }),
      }),
    );
  }

  /** Makes a received message visible again after `delaySeconds` (its retry's backoff). */
  async retryDelivery(receiptHandle: string, delaySeconds: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.max(0, Math.min(43_200, Math.round(delaySeconds))),
      }),
    );
  }
}
