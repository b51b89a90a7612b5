import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { webhookSettings } from '../../functions/shared/runtime-settings';
import { QueueWithDeadLetters } from './queue-with-dead-letters';

/**
 * The webhook queue: `event` messages (fan-out) and `delivery` messages (one attempt each,
 * delayed up to 15 min for short retries).
 */
export class WebhookQueue extends QueueWithDeadLetters {
  constructor(scope: Construct, id: string) {
    super(scope, id, {
      visibilityTimeoutSeconds: webhookSettings.visibilityTimeoutSeconds,
      retentionPeriod: Duration.days(4),
      maxReceiveCount: webhookSettings.maxReceiveCount,
    });
  }
}
