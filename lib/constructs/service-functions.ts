import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type TableName, tableDefinitions } from '../../functions/adapters/dynamodb/table-definitions';
import { WEBHOOK_SECRET_PURPOSE } from '../../functions/adapters/kms/key-purposes';
import {
  apiTimeoutSecondsOf,
  authorizer,
  type FunctionAccess,
  type FunctionDefinition,
  generationWorker,
  type RouteDefinition,
  routes,
  sweeper,
  webhookDispatcher,
} from '../../functions/routes';
import { runtimeSettings, webhookSettings } from '../../functions/shared/runtime-settings';
import type { DataTables } from './data-tables';
import type { ImageBucket } from './image-bucket';
import { InkpressFunction, type InkpressFunctionProps } from './inkpress-function';
import { samLocalDeclarations } from './sam-local';

export interface ServiceFunctionsProps {
  tables: DataTables;
  generationQueue: sqs.IQueue;
  webhookQueue: sqs.IQueue;
  sitePasswordKey: kms.IKey;
  modelSecret: secretsmanager.ISecret;
  images: ImageBucket;
  /** Environment for the language model (see `modelSettingsFromContext`). */
  modelSettings?: Record<string, string>;
  /** Environment for the per-account rate limit of the API functions (see `rateLimitSettingsFromContext`). */
  rateLimitSettings?: Record<string, string>;
  /** SEARCH_PROVIDER and SEARXNG_URL (see `SEARCH_CONTEXT_KEYS`). */
  searchSettings?: Record<string, string>;
  /** The Brave or Tavily key's secret, when that provider is chosen. */
  searchSecret?: secretsmanager.ISecret;
  /** Declare the variables `sam local invoke` needs to reach the local emulators (`sam-local.ts`). */
  samLocal?: boolean;
}

const KEY_ACTIONS = {
  encrypt: ['kms:Encrypt'],
  decrypt: ['kms:Decrypt'],
  encryptDecrypt: ['kms:Encrypt', 'kms:Decrypt'],
} as const;

/**
 * One Lambda per entry of the route table plus the authorizer, the generation worker and
 * the sweeper. Each gets exactly the environment and the grants its `access` declares.
 */
export class ServiceFunctions extends Construct {
  /** The function of each route, by route name. */
  readonly routeFunctions: ReadonlyMap<string, InkpressFunction>;
  readonly authorizer: InkpressFunction;
  readonly worker: InkpressFunction;
  readonly sweeper: InkpressFunction;
  readonly webhookDispatcher: InkpressFunction;
  readonly all: readonly InkpressFunction[];

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ServiceFunctionsProps,
  ) {
    super(scope, id);
    const routeFunctions = new Map<string, InkpressFunction>();
    for (const route of routes) {
      routeFunctions.set(route.name, this.create(route, apiTimeout(route), 512));
    }
    this.routeFunctions = routeFunctions;
    this.authorizer = this.create(authorizer, Duration.seconds(10), 512);
    this.worker = this.create(generationWorker, Duration.seconds(runtimeSettings.workerTimeoutSeconds), 1024);
    this.sweeper = this.create(sweeper, Duration.seconds(runtimeSettings.sweeperTimeoutSeconds), 512, {
      reservedConcurrentExecutions: 1,
      asyncInvoke: {
        maxEventAge: Duration.seconds(runtimeSettings.sweeperTickMaxAgeSeconds),
        retryAttempts: 0,
      },
    });
    this.webhookDispatcher = this.create(
      webhookDispatcher,
      Duration.seconds(webhookSettings.timeoutSeconds),
      512,
    );
    this.all = [
      ...routeFunctions.values(),
      this.authorizer,
      this.worker,
      this.sweeper,
      this.webhookDispatcher,
    ];
  }

  /** The function serving `route`. */
  forRoute(route: RouteDefinition): InkpressFunction {
    const fn = this.routeFunctions.get(route.name);
    if (!fn) throw new Error(`No function for route ${route.name}`);
    return fn;
  }

  private create(
    definition: FunctionDefinition,
    timeout: Duration,
    memorySize: number,
    concurrency: Pick<InkpressFunctionProps, 'reservedConcurrentExecutions' | 'asyncInvoke'> = {},
  ): InkpressFunction {
    const {
      tables,
      generationQueue,
      webhookQueue,
      sitePasswordKey,
      modelSecret,
      modelSettings,
      rateLimitSettings,
      searchSettings,
      searchSecret,
      samLocal,
      images,
    } = this.props;
    const { access } = definition;
    const environment = {
      ...(samLocal ? samLocalDeclarations(access) : {}),
      ...functionEnvironment(access, {
        tableName: (name) => tables.tables[name].tableName,
        queueUrl: generationQueue.queueUrl,
        webhookQueueUrl: webhookQueue.queueUrl,
        sitePasswordKeyId: sitePasswordKey.keyId,
        modelSecretArn: modelSecret.secretArn,
        imageBucketName: images.bucket.bucketName,
        ...(modelSettings ? { modelSettings } : {}),
        ...(rateLimitSettings ? { rateLimitSettings } : {}),
        ...(searchSettings ? { searchSettings } : {}),
        ...(searchSecret ? { searchSecretArn: searchSecret.secretArn } : {}),
      }),
    };

    const fn = new InkpressFunction(this, definition.name, {
      definition,
      timeout,
      memorySize,
      environment,
      ...concurrency,
    });

    for (const [name, tableAccess] of Object.entries(access.tables)) {
      if (tableAccess) tables.grant(fn, name as TableName, tableAccess);
    }
    if (access.sendsToQueue) generationQueue.grantSendMessages(fn);
    if (access.sendsToWebhookQueue) webhookQueue.grantSendMessages(fn);
    if (access.sitePasswordKey && access.keyOnlyForWebhookSecrets) {
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [...KEY_ACTIONS[access.sitePasswordKey]],
          resources: [sitePasswordKey.keyArn],
          // Site passwords are encrypted without a `purpose` (site-password-cipher.ts).
          conditions: { StringEquals: { 'kms:EncryptionContext:purpose': WEBHOOK_SECRET_PURPOSE } },
        }),
      );
    } else if (access.sitePasswordKey) {
      sitePasswordKey.grant(fn, ...KEY_ACTIONS[access.sitePasswordKey]);
    }
    if (access.readsModelSecret) modelSecret.grantRead(fn);
    if (access.webSearch === 'uses') searchSecret?.grantRead(fn);
    if (access.imageBucket) images.grant(fn, access.imageBucket);
    return fn;
  }
}

export interface EnvironmentSources {
  tableName(name: TableName): string;
  queueUrl: string;
  webhookQueueUrl: string;
  sitePasswordKeyId: string;
  modelSecretArn: string;
  imageBucketName: string;
  /** Language-model settings for the functions that use the model (OPENAI_BASE_URL, OPENAI_MODEL_*). */
  modelSettings?: Record<string, string>;
  /** Rate-limit settings for the functions that use the RateLimits table (INKPRESS_RATE_LIMIT_*). */
  rateLimitSettings?: Record<string, string>;
  /** SEARCH_PROVIDER and SEARXNG_URL, for the functions that know of or use the web search. */
  searchSettings?: Record<string, string>;
  searchSecretArn?: string;
}

/**
 * The environment a function gets besides `BASE_ENVIRONMENT`: the names of the tables it may
 * use (by each definition's `envVar`) and the queue, key and secret its access declares.
 */
export function functionEnvironment(
  access: FunctionAccess,
  sources: EnvironmentSources,
): Record<string, string> {
  // Deployed, every response goes out over HTTPS through API Gateway: handlers send HSTS.
  const environment: Record<string, string> = { INKPRESS_ALLOW_PRIVATE_URLS: 'false', INKPRESS_HSTS: 'true' };
  for (const name of Object.keys(access.tables) as TableName[]) {
    environment[tableDefinitions[name].envVar] = sources.tableName(name);
  }
  if (access.sendsToQueue || access.consumesQueue) environment.GENERATION_QUEUE_URL = sources.queueUrl;
  if (access.sendsToWebhookQueue || access.consumesWebhookQueue)
    environment.WEBHOOK_QUEUE_URL = sources.webhookQueueUrl;
  if (access.sitePasswordKey) environment.SITE_PASSWORD_KEY_ID = sources.sitePasswordKeyId;
  if (access.tables.rateLimits) Object.assign(environment, sources.rateLimitSettings);
  if (access.imageBucket) environment.IMAGE_BUCKET_NAME = sources.imageBucketName;
  if (access.readsModelSecret) {
    environment.OPENAI_SECRET_ARN = sources.modelSecretArn;
    Object.assign(environment, sources.modelSettings);
  }
  const provider = sources.searchSettings?.SEARCH_PROVIDER;
  if (access.webSearch && provider) {
    environment.SEARCH_PROVIDER = provider;
    if (access.webSearch === 'uses') {
      if (sources.searchSettings?.SEARXNG_URL) environment.SEARXNG_URL = sources.searchSettings.SEARXNG_URL;
      if (sources.searchSecretArn) environment.SEARCH_SECRET_ARN = sources.searchSecretArn;
    }
  }
  return environment;
}

/** API routes answer within API Gateway's limit; routes that call customer sites get all of it. */
function apiTimeout(route: RouteDefinition): Duration {
  return Duration.seconds(apiTimeoutSecondsOf(route));
}
