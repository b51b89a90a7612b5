/**
 * A local stand-in for Lambda's SQS event source mapping with ReportBatchItemFailures:
 * long-polls the queue and runs up to `maxConcurrency` worker invocations at once, each with a
 * batch of up to `batchSize` messages, as deployed; deletes the records that succeeded and
 * leaves the failed ones for redelivery, as Lambda does: a failed record comes back when its
 * visibility ends, which the worker itself sets to the retry backoff (the same policy deployed
 * and locally); after `maxReceiveCount` receives moto moves it to the dead-letter queue.
 *
 * Two messages with the same body (the same article, e.g. re-sent after a restart while its
 * first message was still being worked on) never run at the same time: the second waits for
 * the first, then finds the article generated and does nothing.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { generationWorker } from '../functions/routes';
import { runtimeSettings } from '../functions/shared/runtime-settings';
import type { HandlerLoader } from './handler-loader';
import { lambdaContext } from './lambda-context';
import { LOCAL_REGION } from './local-config';

/** How long `stop()` waits for running worker invocations. */
const STOP_GRACE_MS = 10_000;
/** SQS hands out at most 10 messages per receive. */
const MAX_RECEIVE = 10;

type WorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined | null>;

export interface QueuePollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  loader: HandlerLoader;
  log: (line: string) => void;
  /** Messages per worker invocation; default `runtimeSettings.workerBatchSize`. */
  batchSize?: number;
  /** Worker invocations in flight at once; default `runtimeSettings.workerMaxConcurrency`. */
  maxConcurrency?: number;
  waitTimeSeconds?: number;
  /** Worker entry; defaults to the generation worker of the route table. */
  entry?: string;
}

export interface QueuePoller {
  /** Stops handing out messages (invocations in flight go on) until `resume()`. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

export interface BatchOutcome {
  succeeded: Message[];
  failed: Message[];
}

export function startQueuePoller(options: QueuePollerOptions): QueuePoller {
  const entry = options.entry ?? generationWorker.entry;
  const batchSize = options.batchSize ?? runtimeSettings.workerBatchSize;
  const maxConcurrency = options.maxConcurrency ?? runtimeSettings.workerMaxConcurrency;
  const abort = new AbortController();
  let stopping = false;
  let paused = false;
  let queueArn: string | undefined;
  const invocations = new Set<Promise<void>>();
  /** The latest invocation of each message body still running. */
  const latestByBody = new Map<string, Promise<void>>();

  const wakers = new Set<() => void>();
  const wakeUp = () => {
    for (const wake of [...wakers]) wake();
  };
  /** Resolves after `ms`, or sooner on stop, resume, or when an invocation ends. */
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });

  function invoke(handler: WorkerHandler, batch: Message[], eventSourceArn: string): void {
    const bodies = batch.map((message) => message.Body ?? '');
    const earlier = bodies.flatMap((body) => latestByBody.get(body) ?? []);
    const invocation = (async () => {
      await Promise.all(earlier);
      const outcome = await invokeWorker(handler, batch, eventSourceArn, options.log);
      await settle(options, outcome);
    })()
      .catch((error: unknown) => {
        if (!stopping && !paused) {
          options.log(`Queue poller: ${error instanceof Error ? error.message : String(error)}`);
        }
      })
      .finally(() => {
        invocations.delete(invocation);
        for (const body of bodies) if (latestByBody.get(body) === invocation) latestByBody.delete(body);
        wakeUp();
      });
    invocations.add(invocation);
    for (const body of bodies) latestByBody.set(body, invocation);
  }

  async function pollOnce(): Promise<void> {
    if (paused || invocations.size >= maxConcurrency) {
      await nap(60_000);
      return;
    }
    // Receive only when there is a worker to give the messages to (they would sit invisible otherwise).
    const loaded = options.loader.load<WorkerHandler>(entry);
    if (loaded.status !== 'loaded') {
      await nap(5_000);
      return;
    }
    queueArn ??= await fetchQueueArn(options.sqs, options.queueUrl, abort.signal);
    const { Messages } = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: Math.min(MAX_RECEIVE, (maxConcurrency - invocations.size) * batchSize),
        WaitTimeSeconds: options.waitTimeSeconds ?? 5,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    if (!Messages || Messages.length === 0) return;
    // Paused while the receive was waiting: the messages are held (invisible) until resume.
    while (paused && !stopping) await nap(60_000);
    if (stopping) return;
    for (const batch of chunks(Messages, batchSize)) invoke(loaded.handler, batch, queueArn);
  }

  const loop = (async () => {
    while (!stopping) {
      try {
        await pollOnce();
      } catch (error) {
        if (stopping) break;
        if (!paused) {
          options.log(`Queue poller: ${error instanceof Error ? error.message : String(error)}; retrying.`);
        }
        await nap(1_000);
      }
    }
  })();

  return {
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      wakeUp();
    },
    async stop() {
      stopping = true;
      abort.abort();
      wakeUp();
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = await Promise.race([
        loop.then(() => Promise.all([...invocations])).then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), STOP_GRACE_MS);
        }),
      ]);
      clearTimeout(timer);
      if (gaveUp) options.log('Queue poller: the worker is still running; its messages will be redelivered.');
    },
  };
}

/** Calls the worker with one batch and sorts its messages the way Lambda's event source does. */
export async function invokeWorker(
  handler: WorkerHandler,
  messages: Message[],
  eventSourceArn: string,
  log: (line: string) => void,
): Promise<BatchOutcome> {
  const records = messages.map((message) => sqsRecord(message, eventSourceArn));
  let response: SQSBatchResponse | undefined | null;
  try {
    response = await handler(
      { Records: records },
      lambdaContext(generationWorker.name, runtimeSettings.workerTimeoutSeconds),
    );
  } catch (error) {
    log(`Worker failed the whole batch: ${error instanceof Error ? error.message : String(error)}`);
    return { succeeded: [], failed: messages };
  }
  const failures = response?.batchItemFailures ?? [];
  const ids = new Set(messages.map((message) => message.MessageId));
  // Lambda fails the whole batch when a failure names no record of the batch.
  if (failures.some((failure) => !failure.itemIdentifier || !ids.has(failure.itemIdentifier))) {
    log('Worker reported an unknown batch item failure; the whole batch fails.');
    return { succeeded: [], failed: messages };
  }
  const failed = new Set(failures.map((failure) => failure.itemIdentifier));
  return {
    succeeded: messages.filter((message) => !failed.has(message.MessageId ?? '')),
    failed: messages.filter((message) => failed.has(message.MessageId ?? '')),
  };
}

async function settle(options: QueuePollerOptions, outcome: BatchOutcome): Promise<void> {
  for (const chunk of chunks(outcome.succeeded, 10)) {
    await options.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: chunk.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
  }
}

async function fetchQueueArn(sqs: SQSClient, queueUrl: string, abortSignal: AbortSignal): Promise<string> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
    { abortSignal },
  );
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`No QueueArn for ${queueUrl}`);
  return arn;
}

/** One SQS message as Lambda's event source presents it. */
export function sqsRecord(message: Message, eventSourceArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? 'String',
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined
        ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
        : {}),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((item) => Buffer.from(item).toString('base64')),
    };
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId
        ? { MessageDeduplicationId: attributes.MessageDeduplicationId }
        : {}),
      ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
      ...(attributes.AWSTraceHeader ? { AWSTraceHeader: attributes.AWSTraceHeader } : {}),
    },
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: eventSourceArn,
    awsRegion: LOCAL_REGION,
  };
}

function chunks<T>(items: T[], size: number): T[][] {
  const result: T[][] = [];
  for (let index = 0; index < items.length; index += size) result.push(items.slice(index, index + size));
  return result;
}
