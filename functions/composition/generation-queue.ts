import { SqsGenerationQueue } from '../adapters/sqs/sqs-generation-queue';
import { sqsClient } from '../shared/aws/sqs';
import { type Config, declared } from '../shared/config';

/** The generation queue, for the functions that send to it (create, retry, the sweeper). */
export function generationQueue(config: Config): SqsGenerationQueue {
  return new SqsGenerationQueue(sqsClient(), declared(config.generationQueueUrl, 'The generation queue'));
}
