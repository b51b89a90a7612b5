/**
 * A local stand-in for Lambda's SQS event source mapping with ReportBatchItemFailures, as
 * deployed: up to `workerMaxConcurrency` invocations at once, each with up to `batchSize`
 * messages; the records that succeeded are deleted, failed ones come back when their visibility
 * (set by the worker to its retry backoff) ends, and moto moves them to the dead-letter queue
 * after `maxReceiveCount` receives. On the generation queue two messages with the same body (one
 * article sent twice) never run at once: the second waits for the first.
 */
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { FunctionDefinition } from '../functions/routes';
import { runtimeSettings } from '../functions/shared/runtime-settings';
import { lambdaContext } from './lambda-context';
import { LOCAL_REGION, loadHandler, messageOf } from './local-config';

type WorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined | null>;

export interface QueuePollerOptions {
  sqs: SQSClient;
  queueUrl: string;
  /** The function the messages go to (its `entry` is loaded at the first batch). */
  worker: Pick<FunctionDefinition, 'name' | 'entry'>;
  log: (line: string) => void;
  /** Messages per invocation (10 at most); default `runtimeSettings.workerBatchSize`. */
  batchSize?: number;
  waitTimeSeconds: number;
  /**
   * A message waits for a running invocation holding one with the same body (default). Off for
   * the webhook queue, whose retry is a new message with the same body, sent at the end of its
   * attempt: waiting for the whole invocation put it off behind a slow sibling's attempt.
   */
  oneAtATimePerBody?: boolean;
}

export function startQueuePoller(options: QueuePollerOptions) {
  const { sqs, queueUrl, worker, log } = options;
  const batchSize = options.batchSize ?? runtimeSettings.workerBatchSize;
  const maxConcurrency = runtimeSettings.workerMaxConcurrency;
  const abort = new AbortController();
  let stopping = false;
  let paused = false;
  const running = new Set<Promise<void>>();
  /** The latest invocation of each message body still running. */
  const latestByBody = new Map<string, Promise<void>>();
  let wake = () => {};
  /** Resolves after `ms`, or sooner on stop, resume, or when an invocation ends. */
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => resolve(clearTimeout(timer));
    });

  function invoke(batch: Message[], queueArn: string): void {
    const bodies = batch.map((message) => message.Body ?? '');
    const oneAtATime = options.oneAtATimePerBody !== false;
    const earlier = oneAtATime ? bodies.flatMap((body) => latestByBody.get(body) ?? []) : [];
    const invocation = (async () => {
      await Promise.all(earlier);
      const handler = loadHandler<WorkerHandler>(worker.entry);
      const { succeeded } = await invokeWorker(handler, batch, queueArn, log, worker.name);
      const Entries = succeeded.map(({ ReceiptHandle }, index) => ({ Id: String(index), ReceiptHandle }));
      if (Entries.length > 0) await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries }));
    })()
      .catch((error: unknown) => {
        if (!stopping && !paused) log(`${worker.name}: ${messageOf(error)}`);
      })
      .finally(() => {
        running.delete(invocation);
        for (const body of bodies) if (latestByBody.get(body) === invocation) latestByBody.delete(body);
        wake();
      });
    running.add(invocation);
    if (oneAtATime) for (const body of bodies) latestByBody.set(body, invocation);
  }

  const loop = (async () => {
    let queueArn: string | undefined;
    while (!stopping) {
      if (paused || running.size >= maxConcurrency) {
        await nap(60_000);
        continue;
      }
      try {
        queueArn ??= await fetchQueueArn(sqs, queueUrl, abort.signal);
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: Math.min(10, (maxConcurrency - running.size) * batchSize),
            WaitTimeSeconds: options.waitTimeSeconds,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        // Paused while the receive was waiting: the messages are held (invisible) until resume.
        while (paused && !stopping) await nap(60_000);
        for (let n = 0; n < Messages.length && !stopping; n += batchSize) {
          invoke(Messages.slice(n, n + batchSize), queueArn);
        }
      } catch (error) {
        if (stopping) break;
        if (!paused) log(`Queue poller: ${messageOf(error)}; retrying.`);
        await nap(1_000);
      }
    }
  })();

  return {
    /** Stops handing out messages (invocations in flight go on) until `resume()`. */
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      wake();
    },
    async stop() {
      stopping = true;
      abort.abort();
      wake();
      const finished = loop.then(() => Promise.all(running)).then(() => false);
      const gaveUp = await Promise.race([
        finished,
        new Promise((resolve) => setTimeout(resolve, 10_000, true).unref()),
      ]);
      if (gaveUp) log(`${worker.name} is still running; its messages will be redelivered.`);
    },
  };
}

/** Calls the worker with one batch and sorts its messages the way Lambda's event source does. */
export async function invokeWorker(
  handler: WorkerHandler,
  messages: Message[],
  eventSourceArn: string,
  log: (line: string) => void,
  functionName = 'GenerationWorker',
): Promise<{ succeeded: Message[]; failed: Message[] }> {
  let response: SQSBatchResponse | undefined | null;
  try {
    const event = { Records: messages.map((message) => sqsRecord(message, eventSourceArn)) };
    response = await handler(event, lambdaContext(functionName, runtimeSettings.workerTimeoutSeconds));
  } catch (error) {
    log(`${functionName} failed the whole batch: ${messageOf(error)}`);
    return { succeeded: [], failed: messages };
  }
  const failedIds = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
  // Lambda fails the whole batch when a failure names no record of the batch.
  if ([...failedIds].some((id) => !messages.some((message) => message.MessageId === id))) {
    log(`${functionName} reported an unknown batch item failure; the whole batch fails.`);
    return { succeeded: [], failed: messages };
  }
  return {
    succeeded: messages.filter((message) => !failedIds.has(message.MessageId ?? '')),
    failed: messages.filter((message) => failedIds.has(message.MessageId ?? '')),
  };
}

async function fetchQueueArn(sqs: SQSClient, QueueUrl: string, abortSignal: AbortSignal): Promise<string> {
  const command = new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] });
  const arn = (await sqs.send(command, { abortSignal })).Attributes?.QueueArn;
  if (!arn) throw new Error(`No QueueArn for ${QueueUrl}`);
  return arn;
}

/**
 * One SQS message as Lambda's event source presents it: the system attributes as received (all
 * of them are asked for), no message attributes (our messages carry none).
 */
export function sqsRecord(message: Message, eventSourceArn: string): SQSRecord {
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: eventSourceArn,
    awsRegion: LOCAL_REGION,
  };
}
