import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface QueueWithDeadLettersProps {
  visibilityTimeoutSeconds: number;
  retentionPeriod: Duration;
  /** Deliveries of one message before it moves to the dead-letter queue. */
  maxReceiveCount: number;
}

/**
 * A queue and its dead-letter queue (kept 14 days), both encrypted (SQS-managed keys) and
 * reachable over TLS only.
 */
export class QueueWithDeadLetters extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: QueueWithDeadLettersProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(props.visibilityTimeoutSeconds),
      retentionPeriod: props.retentionPeriod,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }
}
