/**
 * Test double of the generation worker that takes 300 ms per invocation and records, for the
 * local queue poller's tests, how many invocations ran at once and when each body ran.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export const runs: { body: string; records: number; start: number; end: number }[] = [];
export const concurrency = { now: 0, max: 0 };

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  concurrency.now++;
  concurrency.max = Math.max(concurrency.max, concurrency.now);
  const start = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 300));
  concurrency.now--;
  runs.push({ body: event.Records[0]?.body ?? '', records: event.Records.length, start, end: Date.now() });
  return { batchItemFailures: [] };
}
