import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
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

  /** SendMessageBatch, 10 messages a call; a call that fails fails its 10. */
  async enqueueMany(messages: GenerationMessage[]): Promise<GenerationMessage[]> {
    const failed: GenerationMessage[] = [];
    const calls = [];
    for (let start = 0; start < messages.length; start += 10) {
      const batch = messages.slice(start, start + 10);
      calls.push(
        this.client
          .send(
            new SendMessageBatchCommand({
              QueueUrl: this.queueUrl,
              Entries: batch.map((message, index) => ({
                Id: String(index),
                MessageBody: JSON.stringify({
                  accountId: message.accountId,
                  articleUuid: message.articleUuid,
                }),
              })),
            }),
          )
          .then(
            ({ Failed }) => {
              for (const entry of Failed ?? []) {
                const message = batch[Number(entry.Id)];
                if (message) failed.push(message);
              }
            },
            () => {
              failed.push(...batch);
            },
          ),
      );
    }
    await Promise.all(calls);
    return failed;
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
