import { CfnOutput, Duration, RemovalPolicy, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { runtimeSettings, webhookSettings } from '../functions/shared/runtime-settings';
import { ApiFirewall, wafEnabled } from './constructs/api-firewall';
import { DataTables, tableEntries } from './constructs/data-tables';
import { GenerationQueue } from './constructs/generation-queue';
import { ImageBucket } from './constructs/image-bucket';
import { InkpressApi } from './constructs/inkpress-api';
import { OperationalAlarms } from './constructs/operational-alarms';
import { SAM_LOCAL_CONTEXT_KEY } from './constructs/sam-local';
import { ServiceFunctions } from './constructs/service-functions';
import { WebhookQueue } from './constructs/webhook-queue';
import { acknowledgeNagFindings } from './nag-suppressions';

/**
 * Value of the model API key secret until the operator sets the real key; the worker's secret
 * reader (functions/adapters/secrets/secret-api-key.ts) recognises it and says so.
 */
export const MODEL_SECRET_PLACEHOLDER = 'CHANGE_ME';

/**
 * CDK context keys an operator may set (`cdk deploy -c openaiModelGpt4=gpt-4.1`) and the worker
 * environment variable each becomes.
 */
export const MODEL_CONTEXT_KEYS = {
  openaiBaseUrl: 'OPENAI_BASE_URL',
  openaiModelGpt35Turbo: 'OPENAI_MODEL_GPT_3_5_TURBO',
  openaiModelGpt4: 'OPENAI_MODEL_GPT_4',
  openaiImageModel: 'OPENAI_IMAGE_MODEL',
} as const;

/**
 * CDK context keys of the web search of `research=web` (`-c searchProvider=brave`); with `brave` or
 * `tavily` the stack makes a secret for the provider's key (set by the operator, like the model's).
 */
export const SEARCH_CONTEXT_KEYS = {
  searchProvider: 'SEARCH_PROVIDER',
  searxngUrl: 'SEARXNG_URL',
} as const;

/** CDK context keys of the per-account rate limit (`-c rateLimitPerSecond=20`) and their variables. */
export const RATE_LIMIT_CONTEXT_KEYS = {
  rateLimitPerSecond: 'INKPRESS_RATE_LIMIT_PER_SECOND',
  rateLimitBurst: 'INKPRESS_RATE_LIMIT_BURST',
} as const;

/** CDK context key of the worker invocations the generation queue runs at once (`-c workerMaxConcurrency=20`). */
export const WORKER_CONCURRENCY_CONTEXT_KEY = 'workerMaxConcurrency';

/** The context's worker concurrency, or the default; anything but a whole number from 2 to 1000 (SQS's range) stops the synth. */
function workerMaxConcurrency(scope: Construct): number {
  const value: unknown = scope.node.tryGetContext(WORKER_CONCURRENCY_CONTEXT_KEY);
  if (value === undefined || value === '') return runtimeSettings.workerMaxConcurrency;
  const count = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 2 || count > 1000) {
    throw new Error(
      `-c ${WORKER_CONCURRENCY_CONTEXT_KEY} must be a whole number from 2 to 1000 (the SQS event source's range); given ${JSON.stringify(value)}.`,
    );
  }
  return count;
}

function settingsFromContext(scope: Construct, keys: Record<string, string>): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const [contextKey, envVar] of Object.entries(keys)) {
    const value: unknown = scope.node.tryGetContext(contextKey);
    if ((typeof value === 'string' && value !== '') || typeof value === 'number')
      settings[envVar] = String(value);
  }
  return settings;
}

/**
 * Inkpress in one stack: the tables, the generation queue pair, the site-password key, the
 * model API key secret, one Lambda per route plus authorizer, worker and sweeper, the REST
 * API, the sweeper schedule and the alarms. Environment-agnostic: no account or region
 * look-ups at synth.
 */
export class InkpressStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    const data = new DataTables(this, 'Tables');
    const generation = new GenerationQueue(this, 'Generation');
    const webhooks = new WebhookQueue(this, 'Webhooks');

    const sitePasswordKey = new kms.Key(this, 'SitePasswordKey', {
      description: 'Inkpress: encrypts the WordPress passwords of registered websites',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const modelSecret = new secretsmanager.Secret(this, 'ModelApiKey', {
      description: 'Inkpress: OpenAI API key used by the generation worker (set by the operator)',
      secretStringValue: SecretValue.unsafePlainText(MODEL_SECRET_PLACEHOLDER),
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const searchSettings = settingsFromContext(this, SEARCH_CONTEXT_KEYS);
    const keyedSearch = ['brave', 'tavily'].includes(searchSettings.SEARCH_PROVIDER?.toLowerCase() ?? '');
    const searchSecret = keyedSearch
      ? new secretsmanager.Secret(this, 'SearchApiKey', {
          description: 'Inkpress: web search API key (Brave Search or Tavily) used by the generation worker',
          secretStringValue: SecretValue.unsafePlainText(MODEL_SECRET_PLACEHOLDER),
          removalPolicy: RemovalPolicy.RETAIN,
        })
      : undefined;

    const images = new ImageBucket(this, 'Images');

    const functions = new ServiceFunctions(this, 'Functions', {
      images,
      tables: data,
      generationQueue: generation.queue,
      webhookQueue: webhooks.queue,
      sitePasswordKey,
      modelSecret,
      modelSettings: settingsFromContext(this, MODEL_CONTEXT_KEYS),
      rateLimitSettings: settingsFromContext(this, RATE_LIMIT_CONTEXT_KEYS),
      searchSettings,
      ...(searchSecret ? { searchSecret } : {}),
      // `-c samLocal=true` arrives as a string, `"samLocal": true` in cdk.json as a boolean.
      samLocal: String(this.node.tryGetContext(SAM_LOCAL_CONTEXT_KEY)) === 'true',
    });

    functions.worker.addEventSource(
      new SqsEventSource(generation.queue, {
        batchSize: runtimeSettings.workerBatchSize,
        maxConcurrency: workerMaxConcurrency(this),
        reportBatchItemFailures: true,
      }),
    );

    functions.webhookDispatcher.addEventSource(
      new SqsEventSource(webhooks.queue, {
        batchSize: webhookSettings.batchSize,
        reportBatchItemFailures: true,
      }),
    );

    new events.Rule(this, 'SweeperSchedule', {
      description: 'Runs the Inkpress sweeper',
      schedule: events.Schedule.rate(Duration.minutes(runtimeSettings.sweeperIntervalMinutes)),
      targets: [new targets.LambdaFunction(functions.sweeper, { retryAttempts: 0 })],
    });

    const api = new InkpressApi(this, 'Api', { functions });
    const firewall = wafEnabled(this)
      ? new ApiFirewall(this, 'Firewall', { stage: api.restApi.deploymentStage })
      : undefined;
    const alarms = new OperationalAlarms(this, 'Alarms', {
      restApi: api.restApi,
      generationQueue: generation.queue,
      deadLetterQueue: generation.deadLetterQueue,
      webhookDeadLetterQueue: webhooks.deadLetterQueue,
      functions: functions.all,
    });

    acknowledgeNagFindings({ api, functions, modelSecret, firewall, images });

    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the API', value: api.restApi.url });
    new CfnOutput(this, 'ModelApiKeySecretName', {
      description: 'Put the OpenAI API key in this secret',
      value: modelSecret.secretName,
    });
    new CfnOutput(this, 'ModelApiKeySecretArn', { value: modelSecret.secretArn });
    if (searchSecret) {
      new CfnOutput(this, 'SearchApiKeySecretName', {
        description: 'Put the web search API key in this secret',
        value: searchSecret.secretName,
      });
    }
    new CfnOutput(this, 'ImageBucketName', { value: images.bucket.bucketName });
    new CfnOutput(this, 'SitePasswordKeyId', { value: sitePasswordKey.keyId });
    new CfnOutput(this, 'GenerationQueueUrl', { value: generation.queue.queueUrl });
    new CfnOutput(this, 'GenerationDeadLetterQueueUrl', { value: generation.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'WebhookQueueUrl', { value: webhooks.queue.queueUrl });
    new CfnOutput(this, 'WebhookDeadLetterQueueUrl', { value: webhooks.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'Subscribe to this topic to receive the alarms (docs/operations.md: Alarms)',
      value: alarms.topic.topicArn,
    });
    for (const [name, definition] of tableEntries()) {
      new CfnOutput(this, `${definition.id}TableName`, {
        description: `Table name; environment variable ${definition.envVar}`,
        value: data.tables[name].tableName,
      });
    }
  }
}
