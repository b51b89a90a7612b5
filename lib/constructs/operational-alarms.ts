import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { InkpressFunction } from './inkpress-function';

export interface OperationalAlarmsProps {
  deadLetterQueue: sqs.IQueue;
  functions: readonly InkpressFunction[];
}

/**
 * Alarms on dead-letter queue depth and on each function's errors, all notifying one SNS
 * topic (encrypted with its own key, TLS only) that the operator subscribes to.
 */
export class OperationalAlarms extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: OperationalAlarmsProps) {
    super(scope, id);
    const topicKey = new kms.Key(this, 'TopicKey', {
      description: 'Inkpress alarm topic encryption',
      enableKeyRotation: true,
    });
    // CloudWatch publishes to an encrypted topic only when the key lets it.
    topicKey.grant(
      new iam.ServicePrincipal('cloudwatch.amazonaws.com'),
      'kms:Decrypt',
      'kms:GenerateDataKey*',
    );
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'Inkpress alarms',
      masterKey: topicKey,
      enforceSSL: true,
    });
    const notify = new actions.SnsAction(this.topic);

    const deadLetters = new cloudwatch.Alarm(this, 'DeadLetterQueueNotEmpty', {
      alarmDescription: 'Generation messages reached the dead-letter queue (generation failed for good).',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarms.push(deadLetters);

    for (const fn of props.functions) {
      this.alarms.push(
        new cloudwatch.Alarm(this, `${fn.definition.name}Errors`, {
          alarmDescription: `The ${fn.definition.name} function reported errors.`,
          metric: fn.metricErrors({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    for (const alarm of this.alarms) alarm.addAlarmAction(notify);
  }
}
