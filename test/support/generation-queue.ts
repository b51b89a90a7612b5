/**
 * Delivers the generation queue's messages to the worker handler the way Lambda's SQS event
 * source does: receive a batch, invoke, delete what succeeded, leave failures for redelivery.
 */
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export type WorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

const sqs = new SQSClient({});

export function sqsEventOf(
  messages: Message[],
  queueArn = 'arn:aws:sqs:us-east-1:123456789012:generation',
): SQSEvent {
  return {
    Records: messages.map(
      (message): SQSRecord => ({
        messageId: message.MessageId ?? '',
        receiptHandle: message.ReceiptHandle ?? '',
        body: message.Body ?? '',
        attributes: {
          ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
          SentTimestamp: message.Attributes?.SentTimestamp ?? String(Date.now()),
          SenderId: 'test',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: message.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: queueArn,
        awsRegion: 'us-east-1',
      }),
    ),
  };
}

export const lambdaContext = { awsRequestId: 'test-request', functionName: 'GenerationWorker' } as Context;

/** Receives up to `max` messages; `visibilitySeconds` overrides the queue's visibility timeout. */
export async function receive(
  queueUrl: string,
  max = 10,
  waitSeconds = 0,
  visibilitySeconds?: number,
): Promise<Message[]> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: max,
      WaitTimeSeconds: waitSeconds,
      VisibilityTimeout: visibilitySeconds,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return Messages ?? [];
}

/**
 * Receives and processes batches until the queue is empty. Failed messages are made visible
 * again at once (as if their visibility timeout had passed), up to `maxRounds` rounds.
 */
export async function drainQueue(queueUrl: string, worker: WorkerHandler, maxRounds = 50): Promise<number> {
  let processed = 0;
  for (let round = 0; round < maxRounds; round++) {
    const messages = await receive(queueUrl);
    if (messages.length === 0) return processed;
    const response = await worker(sqsEventOf(messages), lambdaContext);
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const message of messages) {
      if (failed.has(message.MessageId ?? '')) {
        await sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: queueUrl,
            ReceiptHandle: message.ReceiptHandle,
            VisibilityTimeout: 0,
          }),
        );
      } else {
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
        );
        processed++;
      }
    }
  }
  return processed;
}
