/** The SQS client, created once per process on first use (endpoint: `AWS_ENDPOINT_URL_SQS`). */
import { SQSClient } from '@aws-sdk/client-sqs';

let sqs: SQSClient | undefined;

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient({});
  return sqs;
}
