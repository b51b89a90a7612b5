import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUE_RETENTION_SECONDS } from '../../functions/core/articles/lifecycle-policy';
import { runtimeSettings, visibilityTimeoutSeconds } from '../../functions/shared/runtime-settings';

/**
 * The generation queue and its dead-letter queue: a message moves to the dead-letter queue
 * after `maxReceiveCount` deliveries; the visibility timeout is 6x the worker's timeout.
 * Both encrypted (SQS-managed keys) and reachable over TLS only.
 */
export class GenerationQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds),
      // As long as SQS allows: an article may wait in a backlog; one waiting longer is re-sent.
      retentionPeriod: Duration.seconds(QUEUE_RETENTION_SECONDS),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: runtimeSettings.maxReceiveCount },
    });
  }
}
