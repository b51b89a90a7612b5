import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC_NAMES, METRICS_NAMESPACE, METRICS_SERVICE } from '../../functions/shared/metrics';
import type { InkpressFunction } from './inkpress-function';

/** What each alarm tolerates (docs/operations.md "Alarms" explains each one and what to do). */
export const ALARM_LIMITS = {
  /** Window of every alarm: one evaluation period of this many minutes. */
  periodMinutes: 5,
  /** API: share of requests answered with a 5xx (any cause: handler, authorizer, gateway)... */
  apiServerErrorPercent: 5,
  /** ...counted only from this many 5xx answers in the window, so one error at night does not page. */
  apiServerErrorMinimum: 5,
  /** Age of the oldest message on the generation queue: articles waiting this long are a backlog. */
  backlogAgeSeconds: 30 * 60,
} as const;

export interface OperationalAlarmsProps {
  restApi: apigateway.RestApi;
  generationQueue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
  /** Webhook messages that failed five times: storage or queue errors, not receivers' answers. */
  webhookDeadLetterQueue: sqs.IQueue;
  functions: readonly InkpressFunction[];
}

/**
 * The alarms an operator must hear about, all notifying one SNS topic (encrypted with its own
 * key, TLS only) when they fire and again when they return to OK: API 5xx rate, final
 * generation and publication failures, generation backlog, dead-letter queue depth, and the
 * errors of each function (the authorizer's count only real failures: it denies unknown tokens
 * with a policy instead of throwing).
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

    const period = Duration.minutes(ALARM_LIMITS.periodMinutes);
    const stage = props.restApi.deploymentStage;
    const { apiServerErrorMinimum: minimum, apiServerErrorPercent: percent } = ALARM_LIMITS;
    this.add('ApiServerErrors', {
      alarmDescription: `At least ${percent}% of API requests (and at least ${minimum}) were answered with a 5xx in ${ALARM_LIMITS.periodMinutes} minutes.`,
      metric: new cloudwatch.MathExpression({
        expression: `IF(errors >= ${minimum}, 100 * errors / requests, 0)`,
        usingMetrics: {
          errors: stage.metricServerError({ period, statistic: cloudwatch.Stats.SUM }),
          requests: stage.metricCount({ period, statistic: cloudwatch.Stats.SUM }),
        },
        label: '5xx answers (% of requests)',
        period,
      }),
      threshold: percent,
    });

    const serviceMetric = (metricName: string) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: METRICS_SERVICE },
        statistic: cloudwatch.Stats.SUM,
        period,
      });
    this.add('FinalGenerationFailures', {
      alarmDescription:
        'Articles failed for good (state error, credits refunded): the model failed on every attempt, or their message was lost.',
      metric: serviceMetric(METRIC_NAMES.finalGenerationFailures),
      threshold: 1,
    });
    this.add('FinalPublishFailures', {
      alarmDescription:
        'Publications failed for good (state failed): the site rejected them, or kept failing.',
      metric: serviceMetric(METRIC_NAMES.finalPublishFailures),
      threshold: 1,
    });

    this.add('GenerationBacklog', {
      alarmDescription: `The oldest message on the generation queue has waited ${ALARM_LIMITS.backlogAgeSeconds / 60} minutes or more: articles are piling up.`,
      metric: props.generationQueue.metricApproximateAgeOfOldestMessage({
        period,
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: ALARM_LIMITS.backlogAgeSeconds,
    });

    // Maximum over the window, and no data (an idle, empty queue) is OK: the alarm returns to OK
    // as soon as a redrive or a purge empties the queue.
    this.add('DeadLetterQueueNotEmpty', {
      alarmDescription: 'Generation messages are in the dead-letter queue: redrive or purge them.',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period,
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 1,
    });

    this.add('WebhookDeadLetterQueueNotEmpty', {
      alarmDescription:
        'Webhook messages are in their dead-letter queue (the dispatcher could not store or send them): look at the WebhookDispatcher logs, then redrive or purge them.',
      metric: props.webhookDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period,
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 1,
    });

    for (const fn of props.functions) {
      this.add(`${fn.definition.name}Errors`, {
        alarmDescription: `The ${fn.definition.name} function failed (an exception, a timeout or a crash).`,
        metric: fn.metricErrors({ period, statistic: cloudwatch.Stats.SUM }),
        threshold: 1,
      });
    }

    const notify = new actions.SnsAction(this.topic);
    for (const alarm of this.alarms) {
      alarm.addAlarmAction(notify);
      alarm.addOkAction(notify);
    }
  }

  /** An alarm when the metric reaches `threshold` in one period; no data is OK. */
  private add(
    id: string,
    props: Pick<cloudwatch.AlarmProps, 'alarmDescription' | 'metric' | 'threshold'>,
  ): void {
    this.alarms.push(
      new cloudwatch.Alarm(this, id, {
        ...props,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}
