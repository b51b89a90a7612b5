/**
 * The service's own CloudWatch metrics, through Powertools Metrics (Embedded Metric Format on
 * stdout, which Lambda's log pipeline turns into metrics). Each record is flushed at once, so a
 * crash later in the invocation cannot lose it. Outside Lambda (npm start, tests) nothing is
 * printed unless POWERTOOLS_METRICS_DISABLED=false asks for it.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { envFlag } from './env';

/** Namespace, dimension and names the stack's alarms watch (lib/constructs/operational-alarms.ts). */
export const METRICS_NAMESPACE = 'Inkpress';
export const METRICS_SERVICE = 'inkpress';
export const METRIC_NAMES = {
  /** Articles that reached `error` (credits refunded): the model failed on every attempt, or the message was lost. */
  finalGenerationFailures: 'FinalGenerationFailures',
  /** Publications that reached their final `failed` state. */
  finalPublishFailures: 'FinalPublishFailures',
} as const;

let metrics: Metrics | undefined;

function emitter(): Metrics | undefined {
  const enabled = !envFlag('POWERTOOLS_METRICS_DISABLED', !process.env.AWS_LAMBDA_FUNCTION_NAME);
  if (!enabled) return undefined;
  metrics ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
  return metrics;
}

function record(name: string, count: number): void {
  if (!(count > 0)) return;
  const target = emitter();
  if (!target) return;
  target.addMetric(name, MetricUnit.Count, count);
  target.publishStoredMetrics();
}

/** `count` articles failed for good (state `error`, credits refunded). */
export function recordFinalGenerationFailure(count = 1): void {
  record(METRIC_NAMES.finalGenerationFailures, count);
}

/** `count` publications failed for good (final state `failed`). */
export function recordFinalPublishFailure(count = 1): void {
  record(METRIC_NAMES.finalPublishFailures, count);
}
