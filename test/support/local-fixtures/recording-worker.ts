/**
 * Test double of the generation worker for the local queue poller: records every SQSEvent and
 * reports the records whose body is `{"fail": true}` as batch item failures.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export const received: SQSEvent[] = [];

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  received.push(event);
  return {
    batchItemFailures: event.Records.filter((record) => JSON.parse(record.body).fail === true).map(
      (record) => ({ itemIdentifier: record.messageId }),
    ),
  };
}
