import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { webhookSettings } from '../../functions/shared/runtime-settings';

/**
 * The webhook queue and its dead-letter queue: `event` messages (fan-out) and `delivery`
 * messages (one attempt each, delayed up to 15 min for short retries). Encrypted (SQS-managed
 * keys), TLS only.
 */
export class WebhookQueue extends Construct {
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
      visibilityTimeout: Duration.seconds(webhookSettings.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(4),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: webhookSettings.maxReceiveCount },
    });
  }
}
