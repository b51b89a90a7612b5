import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { QUEUE_RETENTION_SECONDS } from '../../functions/core/articles/lifecycle-policy';
import { runtimeSettings, visibilityTimeoutSeconds } from '../../functions/shared/runtime-settings';
import { QueueWithDeadLetters } from './queue-with-dead-letters';

/**
 * The generation queue: the visibility timeout is 6x the worker's timeout; kept as long as SQS
 * allows (an article may wait in a backlog; one waiting longer is re-sent).
 */
export class GenerationQueue extends QueueWithDeadLetters {
  constructor(scope: Construct, id: string) {
    super(scope, id, {
      visibilityTimeoutSeconds,
      retentionPeriod: Duration.seconds(QUEUE_RETENTION_SECONDS),
      maxReceiveCount: runtimeSettings.maxReceiveCount,
    });
  }
}
