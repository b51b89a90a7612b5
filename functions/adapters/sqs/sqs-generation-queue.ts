import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
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
}
