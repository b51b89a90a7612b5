import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { GenerationMessage, GenerationQueue } from '../../core/articles/ports';
import { type GroupOutcome, groupedCalls } from '../../shared/grouped-calls';

/** Sends in flight at once from one process; messages that arrive meanwhile go 10 a call. */
const SENDS_IN_FLIGHT = 2;

export class SqsGenerationQueue implements GenerationQueue {
  /**
   * A lone message is one SendMessage, as always; messages that arrive while SENDS_IN_FLIGHT sends
   * are out (many creates at once in one process: the local runtime) go together, 10 to a
   * SendMessageBatch (shared/grouped-calls.ts). A message the batch could not send fails its
   * own caller only.
   */
  private readonly grouped = groupedCalls<GenerationMessage, void>((messages) => this.sendGroup(messages), {
    maxGroup: 10,
    inFlight: SENDS_IN_FLIGHT,
  });

  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  enqueue(message: GenerationMessage): Promise<void> {
    return this.grouped(message);
  }

  private async sendGroup(messages: GenerationMessage[]): Promise<GroupOutcome<void>[]> {
    const [only] = messages;
    if (messages.length === 1 && only) {
      await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: bodyOf(only) }));
      return [{ value: undefined }];
    }
    const { Failed } = await this.client.send(
      new SendMessageBatchCommand({
        QueueUrl: this.queueUrl,
        Entries: messages.map((message, index) => ({ Id: String(index), MessageBody: bodyOf(message) })),
      }),
    );
    const failed = new Map((Failed ?? []).map((entry) => [Number(entry.Id), entry]));
    return messages.map((_, index) => {
      const entry = failed.get(index);
      return entry ? { error: new Error(`${entry.Code}: ${entry.Message}`) } : { value: undefined };
    });
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
              Entries: batch.map((message, index) => ({ Id: String(index), MessageBody: bodyOf(message) })),
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

function bodyOf(message: GenerationMessage): string {
  return JSON.stringify({ accountId: message.accountId, articleUuid: message.articleUuid });
}
