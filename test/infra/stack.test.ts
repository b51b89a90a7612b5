/**
 * Assertions on the synthesized CloudFormation template of the Inkpress stack. The stack is
 * synthesized once (bundling skipped: only the template is checked) with the context of
 * cdk.json, as `cdk synth` does.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type TableName, tableDefinitions } from '../../functions/adapters/dynamodb/table-definitions';
import { readSecretApiKey } from '../../functions/adapters/secrets/secret-api-key';
import { errorBodies } from '../../functions/api/http/responses';
import { AUTHENTICATION_HINTS } from '../../functions/core/authentication-hints';
import {
  authorizer,
  type FunctionDefinition,
  generationWorker,
  type RouteDefinition,
  routes,
  sweeper,
  webhookDispatcher,
} from '../../functions/routes';
import { runtimeSettings, webhookSettings } from '../../functions/shared/runtime-settings';
import { RATE_PER_ADDRESS } from '../../lib/constructs/api-firewall';
import { ANSWERED_METHODS, STAGE_NAME, THROTTLING } from '../../lib/constructs/inkpress-api';
import { InkpressStack, MODEL_SECRET_PLACEHOLDER } from '../../lib/inkpress-stack';
import { templateOnlyApp } from '../support/template-only-context';

type Json = Record<string, unknown>;
interface CfnResource {
  Type: string;
  Properties: Json;
  DependsOn?: string[];
  DeletionPolicy?: string;
}
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Principal?: unknown;
  Condition?: unknown;
}

const cdkJson = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'cdk.json'), 'utf8')) as {
  context: Json;
};
const app = templateOnlyApp(cdkJson.context);
const stack = new InkpressStack(app, 'Inkpress');
const template = Template.fromStack(stack);
const resources = template.toJSON().Resources as Record<string, CfnResource>;

const allDefinitions: FunctionDefinition[] = [
  ...routes,
  authorizer,
  generationWorker,
  sweeper,
  webhookDispatcher,
];

function resource(logicalId: string): CfnResource {
  const found = resources[logicalId];
  if (!found) throw new Error(`no resource ${logicalId}`);
  return found;
}

function ofType(type: string): [string, CfnResource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

function only<T>(items: T[], what: string): T {
  if (items.length !== 1) throw new Error(`expected exactly one ${what}, found ${items.length}`);
  return items[0] as T;
}

/** Logical id of the Lambda function of a definition (each carries `Inkpress <name>` as description). */
function functionId(definition: FunctionDefinition): string {
  return only(
    ofType('AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.Description === `Inkpress ${definition.name}`)
      .map(([id]) => id),
    `function ${definition.name}`,
  );
}

function roleIdOf(definition: FunctionDefinition): string {
  const role = resource(functionId(definition)).Properties.Role as { 'Fn::GetAtt': [string, string] };
  return role['Fn::GetAtt'][0];
}

/** Every IAM statement attached to a function's role. */
function statementsOf(definition: FunctionDefinition): Statement[] {
  const roleId = roleIdOf(definition);
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => (policy.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

function actionsOf(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

function mentions(value: unknown, logicalId: string): boolean {
  return JSON.stringify(value).includes(`"${logicalId}"`);
}

/** Actions a function's role may perform on a resource (matched by its logical id). */
function actionsOn(definition: FunctionDefinition, logicalId: string): string[] {
  return statementsOf(definition)
    .filter((statement) => mentions(statement.Resource, logicalId))
    .flatMap(actionsOf)
    .sort();
}

function resourceIdMatching(type: string, pattern: RegExp): string {
  return only(
    ofType(type)
      .map(([id]) => id)
      .filter((id) => pattern.test(id)),
    `${type} ${pattern}`,
  );
}

const tableIds = Object.fromEntries(
  (Object.keys(tableDefinitions) as TableName[]).map((name) => [
    name,
    resourceIdMatching('AWS::DynamoDB::Table', new RegExp(`^Tables${tableDefinitions[name].id}[0-9A-F]{8}$`)),
  ]),
) as Record<TableName, string>;
const queueId = resourceIdMatching('AWS::SQS::Queue', /^GenerationQueue[0-9A-F]{8}$/);
const deadLetterQueueId = resourceIdMatching('AWS::SQS::Queue', /^GenerationDeadLetterQueue[0-9A-F]{8}$/);
const sitePasswordKeyId = resourceIdMatching('AWS::KMS::Key', /^SitePasswordKey[0-9A-F]{8}$/);
const secretId = resourceIdMatching('AWS::SecretsManager::Secret', /^ModelApiKey[0-9A-F]{8}$/);
const restApiId = only(
  ofType('AWS::ApiGateway::RestApi').map(([id]) => id),
  'REST API',
);
const authorizerId = only(
  ofType('AWS::ApiGateway::Authorizer').map(([id]) => id),
  'authorizer',
);

/** Full path of each API Gateway resource, by logical id. */
const resourcePaths = new Map<string, string>();
function pathOf(resourceId: string): string {
  const known = resourcePaths.get(resourceId);
  if (known) return known;
  const { Properties } = resource(resourceId);
  const parent = Properties.ParentId as { Ref?: string };
  const parentPath = parent.Ref ? pathOf(parent.Ref) : '';
  const full = `${parentPath}/${Properties.PathPart as string}`;
  resourcePaths.set(resourceId, full);
  return full;
}

/** The API Gateway methods, keyed `METHOD /path`. */
const methods = new Map(
  ofType('AWS::ApiGateway::Method').map(([, method]) => {
    const resourceRef = method.Properties.ResourceId as { Ref?: string };
    const route = resourceRef.Ref ? pathOf(resourceRef.Ref) : '/';
    return [`${method.Properties.HttpMethod as string} ${route}`, method.Properties] as const;
  }),
);

describe('API Gateway', () => {
  const guarded = routes.filter((route) => !route.public);
  it.each(guarded.flatMap((route) => route.methods.map((method) => [method, route.path, route] as const)))(
    '%s %s is proxied to its own function behind the token authorizer',
    (method, routePath, route: RouteDefinition) => {
      const props = methods.get(`${method} ${routePath}`) ?? {};
      expect(props).toMatchObject({
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
      expect(mentions((props.Integration as Json).Uri, functionId(route))).toBe(true);
    },
  );

  const open = routes.filter((route) => route.public);
  it.each(open.flatMap((route) => route.methods.map((method) => [method, route.path, route] as const)))(
    '%s %s (public) is proxied to its own function without authorization',
    (method, routePath, route: RouteDefinition) => {
      const props = methods.get(`${method} ${routePath}`) ?? {};
      expect(props).toMatchObject({
        AuthorizationType: 'NONE',
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
      expect(props.AuthorizerId).toBeUndefined();
      expect(mentions((props.Integration as Json).Uri, functionId(route))).toBe(true);
    },
  );

  it('guards every route with the token authorizer except the OpenAPI document and the docs page', () => {
    expect(open.map((route) => route.path).sort()).toEqual(['/docs', '/v1/openapi.json']);
  });

  it('has exactly the routed and the 405 methods, nothing else', () => {
    const expected = routes.flatMap((route) => ANSWERED_METHODS.map((method) => `${method} ${route.path}`));
    expect([...methods.keys()].sort()).toEqual(expected.sort());
  });

  it.each(
    routes.flatMap((route) =>
      ANSWERED_METHODS.filter((method) => !(route.methods as string[]).includes(method)).map(
        (method) => [method, route.path, route] as const,
      ),
    ),
  )('%s %s answers 405 JSON from a mock, without authorization', (method, routePath, route) => {
    const props = methods.get(`${method} ${routePath}`);
    expect(props).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'MOCK' } });
    const integration = props?.Integration as {
      RequestTemplates: Record<string, string>;
      IntegrationResponses: Json[];
    };
    expect(JSON.parse(integration.RequestTemplates['application/json'] ?? '')).toEqual({ statusCode: 405 });
    expect(integration.IntegrationResponses).toEqual([
      {
        StatusCode: '405',
        ResponseParameters: {
          'method.response.header.Content-Type': "'application/json'",
          'method.response.header.Cache-Control': "'no-store'",
          'method.response.header.X-Content-Type-Options': "'nosniff'",
          'method.response.header.Strict-Transport-Security': "'max-age=63072000; includeSubDomains'",
          'method.response.header.Allow': `'${route.methods.join(', ')}'`,
        },
        ResponseTemplates: { 'application/json': JSON.stringify(errorBodies.methodNotAllowed) },
      },
    ]);
    expect(props?.MethodResponses).toEqual([expect.objectContaining({ StatusCode: '405' })]);
  });

  it('authorizes bearer tokens from the Authorization header with a cached TOKEN authorizer', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: runtimeSettings.authorizerCacheSeconds,
      RestApiId: { Ref: restApiId },
    });
    const uri = resource(authorizerId).Properties.AuthorizerUri;
    expect(mentions(uri, functionId(authorizer))).toBe(true);
  });

  it('deploys stage prod with throttling, metrics, error logging and JSON access logs', () => {
    const stage = only(ofType('AWS::ApiGateway::Stage'), 'stage')[1].Properties;
    expect(stage).toMatchObject({
      StageName: STAGE_NAME,
      MethodSettings: [
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: THROTTLING.rateLimit,
          ThrottlingBurstLimit: THROTTLING.burstLimit,
          MetricsEnabled: true,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        },
      ],
    });
    const accessLog = stage.AccessLogSetting as { Format: string; DestinationArn: unknown };
    expect(JSON.parse(accessLog.Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      accountId: '$context.authorizer.principalId',
    });
    const [logGroupId] =
      ofType('AWS::Logs::LogGroup').find(([id]) => mentions(accessLog.DestinationArn, id)) ?? [];
    expect(logGroupId).toBeDefined();
    expect(resource(logGroupId as string).Properties.RetentionInDays).toBeGreaterThan(0);
  });

  it('passes multipart bodies as binary, answers the compressed docs page as bytes, and is regional', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      BinaryMediaTypes: ['multipart/form-data', 'text/html'],
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  const json = (body: object) => JSON.stringify(body);
  it.each([
    ['UNAUTHORIZED', '401', json({ ...errorBodies.unauthenticated, hint: AUTHENTICATION_HINTS.missing })],
    ['MISSING_AUTHENTICATION_TOKEN', '404', json(errorBodies.notFound)],
    ['ACCESS_DENIED', '401', '{"message":"Unauthenticated.","hint":"$context.authorizer.hint"}'],
    ['REQUEST_TOO_LARGE', '413', json(errorBodies.payloadTooLarge)],
    ['THROTTLED', '429', json(errorBodies.tooManyRequests)],
    ['QUOTA_EXCEEDED', '429', json(errorBodies.tooManyRequests)],
    ['DEFAULT_4XX', undefined, '{"message":$context.error.messageString}'],
    ['INTEGRATION_TIMEOUT', '504', '{"message":"Server error.","request_id":"$context.requestId"}'],
    ['DEFAULT_5XX', '500', '{"message":"Server error.","request_id":"$context.requestId"}'],
  ])('gateway response %s is %s JSON in our error shape', (type, statusCode, body) => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: type,
      StatusCode: statusCode ?? Match.absent(),
      ResponseParameters: {
        'gatewayresponse.header.Content-Type': "'application/json'",
        'gatewayresponse.header.Cache-Control': "'no-store'",
        'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
        'gatewayresponse.header.Strict-Transport-Security': "'max-age=63072000; includeSubDomains'",
      },
      ResponseTemplates: { 'application/json': body },
    });
  });

  it.each(['UNAUTHORIZED', 'ACCESS_DENIED'])(
    'gateway response %s says how to authenticate (WWW-Authenticate: Bearer)',
    (type) => {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        ResponseParameters: Match.objectLike({ 'gatewayresponse.header.WWW-Authenticate': "'Bearer'" }),
      });
    },
  );

  it('outputs the API URL', () => {
    template.hasOutput('ApiUrl', {});
  });
});

describe('functions', () => {
  it('creates one function per route plus authorizer, worker, sweeper and webhook dispatcher', () => {
    expect(ofType('AWS::Lambda::Function')).toHaveLength(allDefinitions.length);
  });

  it.each(allDefinitions.map((definition) => [definition.name, definition] as const))(
    '%s runs Node.js 22 on arm64, logs to its own group with retention, and has its environment',
    (_name, definition) => {
      const props = resource(functionId(definition)).Properties as Json;
      expect(props).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });

      const logGroupRef = (props.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(resource(logGroupRef).Properties.RetentionInDays).toBe(30);

      const environment = (props.Environment as { Variables: Record<string, unknown> }).Variables;
      const tableVars = Object.keys(definition.access.tables).map(
        (name) => tableDefinitions[name as TableName].envVar,
      );
      expect(Object.keys(environment).sort()).toEqual(
        [
          'POWERTOOLS_SERVICE_NAME',
          'INKPRESS_ALLOW_PRIVATE_URLS',
          'INKPRESS_HSTS',
          ...tableVars,
          ...(definition.access.sendsToQueue || definition.access.consumesQueue
            ? ['GENERATION_QUEUE_URL']
            : []),
          ...(definition.access.sendsToWebhookQueue || definition.access.consumesWebhookQueue
            ? ['WEBHOOK_QUEUE_URL']
            : []),
          ...(definition.access.sitePasswordKey ? ['SITE_PASSWORD_KEY_ID'] : []),
          ...(definition.access.readsModelSecret ? ['OPENAI_SECRET_ARN'] : []),
          ...(definition.access.imageBucket ? ['IMAGE_BUCKET_NAME'] : []),
        ].sort(),
      );
      expect(environment).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'inkpress',
        INKPRESS_ALLOW_PRIVATE_URLS: 'false',
        INKPRESS_HSTS: 'true',
      });
      for (const [name, envVar] of Object.entries(definition.access.tables).map(
        ([table]) => [table, tableDefinitions[table as TableName].envVar] as const,
      )) {
        expect(environment[envVar]).toEqual({ Ref: tableIds[name as TableName] });
      }
    },
  );

  it.each(allDefinitions.map((definition) => [definition.name, definition] as const))(
    '%s has its own role with no managed policy, depending only on its policy',
    (_name, definition) => {
      const roleId = roleIdOf(definition);
      expect(resource(roleId).Properties.ManagedPolicyArns).toBeUndefined();
      const dependsOn = resource(functionId(definition)).DependsOn ?? [];
      expect(dependsOn).toHaveLength(1);
      expect(resources[dependsOn[0] as string]?.Type).toBe('AWS::IAM::Policy');
    },
  );

  /**
   * The DynamoDB actions each function's code sends, read from the adapters it calls (written
   * out here, not derived from the route table, so a loosened declaration fails).
   */
  const expectedTableActions: Record<string, Partial<Record<TableName, string[]>>> = {
    ListLanguages: { rateLimits: ['UpdateItem'] },
    ListWebsites: { rateLimits: ['UpdateItem'], websites: ['Query'] },
    CreateWebsite: {
      rateLimits: ['GetItem', 'PutItem', 'UpdateItem'],
      websites: ['GetItem', 'PutItem'],
      categories: ['BatchWriteItem'],
      idempotency: ['DeleteItem', 'GetItem', 'PutItem', 'UpdateItem'],
      siteIndex: ['BatchWriteItem', 'GetItem', 'PutItem', 'Query'],
    },
    CheckWebsite: { rateLimits: ['GetItem', 'PutItem', 'UpdateItem'] },
    ShowWebsite: { rateLimits: ['UpdateItem'], websites: ['GetItem'], siteIndex: ['GetItem'] },
    UpdateWebsite: {
      rateLimits: ['GetItem', 'PutItem', 'UpdateItem'],
      websites: ['GetItem', 'UpdateItem'],
      categories: ['BatchWriteItem', 'Query'],
      articles: ['Query', 'UpdateItem'],
      siteIndex: ['GetItem'],
      webhooks: ['PutItem', 'Query'],
    },
    SiteProfile: {
      rateLimits: ['UpdateItem'],
      websites: ['ConditionCheckItem', 'GetItem', 'PutItem'],
      categories: ['GetItem'],
    },
    DeleteWebsite: {
      rateLimits: ['UpdateItem'],
      websites: ['DeleteItem', 'GetItem'],
      categories: ['BatchWriteItem', 'Query'],
      siteIndex: ['BatchWriteItem', 'Query'],
    },
    ListCategories: { rateLimits: ['UpdateItem'], websites: ['GetItem'], categories: ['Query'] },
    ListArticles: {
      rateLimits: ['UpdateItem'],
      accounts: ['GetItem'],
      articles: ['Query'],
      websites: ['BatchGetItem'],
      categories: ['BatchGetItem'],
    },
    ListQueuedArticles: {
      rateLimits: ['UpdateItem'],
      articles: ['GetItem', 'Query'],
      websites: ['BatchGetItem'],
      categories: ['BatchGetItem'],
    },
    ShowArticle: {
      rateLimits: ['UpdateItem'],
      articles: ['GetItem'],
      websites: ['BatchGetItem'],
      categories: ['BatchGetItem'],
    },
    CreateArticle: {
      rateLimits: ['UpdateItem'],
      // Creates reserved together read the balance and check it (reservation-groups.ts).
      accounts: ['ConditionCheckItem', 'GetItem', 'UpdateItem'],
      dailyUsage: ['ConditionCheckItem', 'GetItem', 'UpdateItem'],
      articles: ['GetItem', 'PutItem', 'UpdateItem'],
      websites: ['GetItem'],
      categories: ['GetItem'],
      idempotency: ['DeleteItem', 'GetItem', 'PutItem', 'UpdateItem'],
      siteIndex: ['GetItem', 'Query'],
    },
    CreateBatch: {
      rateLimits: ['UpdateItem'],
      accounts: ['GetItem', 'UpdateItem'],
      dailyUsage: ['GetItem', 'UpdateItem'],
      articles: ['BatchWriteItem', 'PutItem', 'UpdateItem'],
      websites: ['GetItem'],
      categories: ['GetItem'],
      idempotency: ['DeleteItem', 'GetItem', 'PutItem', 'UpdateItem'],
      siteIndex: ['GetItem', 'Query'],
      batches: ['BatchWriteItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'],
    },
    ListBatches: { rateLimits: ['UpdateItem'], batches: ['Query'] },
    ShowBatch: { rateLimits: ['UpdateItem'], batches: ['GetItem'], articles: ['BatchGetItem'] },
    RetryArticle: {
      rateLimits: ['UpdateItem'],
      accounts: ['GetItem', 'UpdateItem'],
      dailyUsage: ['UpdateItem'],
      articles: ['GetItem', 'UpdateItem'],
      websites: ['BatchGetItem'],
      categories: ['BatchGetItem'],
    },
    ApproveOutline: {
      rateLimits: ['UpdateItem'],
      articles: ['GetItem', 'UpdateItem'],
      websites: ['BatchGetItem'],
      categories: ['BatchGetItem'],
    },
    CancelArticle: {
      rateLimits: ['UpdateItem'],
      accounts: ['UpdateItem'],
      articles: ['GetItem', 'UpdateItem'],
      websites: ['BatchGetItem'],
      categories: ['BatchGetItem'],
    },
    ShowAccount: { rateLimits: ['UpdateItem'], accounts: ['GetItem'], dailyUsage: ['GetItem'] },
    AccountUsage: { rateLimits: ['UpdateItem'], usageDays: ['Query'] },
    RefreshSiteIndex: {
      rateLimits: ['UpdateItem'],
      websites: ['GetItem', 'UpdateItem'],
      siteIndex: ['BatchWriteItem', 'GetItem', 'PutItem', 'Query'],
    },
    RefreshCategories: {
      rateLimits: ['UpdateItem'],
      websites: ['GetItem', 'UpdateItem'],
      categories: ['BatchWriteItem', 'Query'],
      // website.unhealthy / website.recovered carry the index fields of show.
      siteIndex: ['GetItem'],
      webhooks: ['PutItem', 'Query'],
    },
    CreateWebhook: { rateLimits: ['UpdateItem'], webhooks: ['PutItem', 'UpdateItem'] },
    ListWebhooks: { rateLimits: ['UpdateItem'], webhooks: ['Query'] },
    ShowWebhook: { rateLimits: ['UpdateItem'], webhooks: ['GetItem'] },
    DeleteWebhook: { rateLimits: ['UpdateItem'], webhooks: ['DeleteItem', 'GetItem', 'UpdateItem'] },
    EnableWebhook: { rateLimits: ['UpdateItem'], webhooks: ['GetItem', 'UpdateItem'] },
    RotateWebhookSecret: { rateLimits: ['UpdateItem'], webhooks: ['GetItem', 'UpdateItem'] },
    ListWebhookDeliveries: { rateLimits: ['UpdateItem'], webhooks: ['GetItem', 'Query'] },
    OpenApiDocument: {},
    DocsPage: {},
    Authorizer: { apiTokens: ['GetItem'] },
    GenerationWorker: {
      accounts: ['GetItem', 'UpdateItem'],
      articles: ['GetItem', 'UpdateItem'],
      websites: ['BatchGetItem', 'GetItem', 'UpdateItem'],
      categories: ['BatchGetItem', 'GetItem'],
      usageDays: ['UpdateItem'],
      webhooks: ['PutItem', 'Query'],
      siteIndex: ['BatchWriteItem', 'GetItem', 'PutItem', 'Query'],
    },
    Sweeper: {
      accounts: ['GetItem', 'UpdateItem'],
      dailyUsage: ['UpdateItem'],
      articles: ['BatchGetItem', 'GetItem', 'PutItem', 'Query', 'UpdateItem'],
      websites: ['BatchGetItem', 'GetItem', 'Query', 'UpdateItem'],
      categories: ['BatchGetItem', 'BatchWriteItem', 'GetItem', 'Query'],
      webhooks: ['GetItem', 'PutItem', 'Query', 'UpdateItem'],
      siteIndex: ['GetItem', 'PutItem'],
      batches: ['BatchWriteItem', 'GetItem', 'Query', 'UpdateItem'],
    },
    WebhookDispatcher: { webhooks: ['GetItem', 'PutItem', 'Query', 'UpdateItem'] },
  };

  it('knows the expected DynamoDB actions of every function', () => {
    expect(Object.keys(expectedTableActions).sort()).toEqual(allDefinitions.map((d) => d.name).sort());
  });

  it.each(allDefinitions.map((definition) => [definition.name, definition] as const))(
    '%s holds exactly the DynamoDB actions its code calls, on its tables only',
    (name, definition) => {
      const expected = expectedTableActions[name] ?? {};
      for (const table of Object.keys(tableDefinitions) as TableName[]) {
        expect({ table, actions: actionsOn(definition, tableIds[table]) }).toEqual({
          table,
          actions: (expected[table] ?? []).map((action) => `dynamodb:${action}`).sort(),
        });
      }
      const tableStatements = statementsOf(definition).filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
      );
      for (const statement of tableStatements) {
        expect(JSON.stringify(statement.Resource)).not.toContain('*');
        // Indexes answer queries only.
        if (JSON.stringify(statement.Resource).includes('/index/')) {
          expect(actionsOf(statement)).toEqual(['dynamodb:Query']);
        }
      }
      const queried = (Object.keys(expected) as TableName[]).filter((table) =>
        expected[table]?.includes('Query'),
      );
      const indexNames = queried.flatMap(
        (table) =>
          (tableDefinitions[table] as { globalIndexes?: { indexName: string }[] }).globalIndexes?.map(
            (index) => `/index/${index.indexName}`,
          ) ?? [],
      );
      const grantedText = JSON.stringify(tableStatements.map((statement) => statement.Resource));
      for (const index of indexNames) expect(grantedText).toContain(index);
    },
  );

  it('grants no Scan, DescribeTable or wildcard DynamoDB action to any function', () => {
    const granted = allDefinitions.flatMap((definition) => statementsOf(definition).flatMap(actionsOf));
    for (const action of ['dynamodb:Scan', 'dynamodb:DescribeTable', 'dynamodb:*']) {
      expect(granted).not.toContain(action);
    }
  });

  it.each(allDefinitions.map((definition) => [definition.name, definition] as const))(
    '%s may use the queue, the site-password key and the model secret only as its access declares',
    (_name, definition) => {
      const { sendsToQueue, sitePasswordKey, readsModelSecret } = definition.access;
      expect(actionsOn(definition, queueId).includes('sqs:SendMessage')).toBe(sendsToQueue === true);
      expect(actionsOn(definition, deadLetterQueueId)).toEqual([]);
      const keyActions = {
        encrypt: ['kms:Encrypt'],
        decrypt: ['kms:Decrypt'],
        encryptDecrypt: ['kms:Decrypt', 'kms:Encrypt'],
      };
      expect(actionsOn(definition, sitePasswordKeyId)).toEqual(
        sitePasswordKey ? keyActions[sitePasswordKey] : [],
      );
      expect(actionsOn(definition, secretId)).toEqual(
        readsModelSecret ? ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'] : [],
      );
    },
  );

  it('gives no function a wildcard resource', () => {
    for (const definition of allDefinitions) {
      for (const statement of statementsOf(definition)) {
        expect(statement.Resource).not.toBe('*');
      }
    }
  });
});

describe('DynamoDB tables', () => {
  it('creates exactly the tables of the shared definitions', () => {
    expect(ofType('AWS::DynamoDB::Table')).toHaveLength(Object.keys(tableDefinitions).length);
  });

  it.each(Object.entries(tableDefinitions))(
    '%s has its keys, indexes, TTL, on-demand billing, PITR and is retained',
    (name, definitionValue) => {
      const definition = definitionValue as (typeof tableDefinitions)[TableName] & {
        sortKey?: { name: string; type: string };
        globalIndexes?: {
          indexName: string;
          partitionKey: { name: string };
          sortKey?: { name: string };
        }[];
        timeToLiveAttribute?: string;
      };
      const table = resource(tableIds[name as TableName]);
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        KeySchema: [
          { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
          ...(definition.sortKey ? [{ AttributeName: definition.sortKey.name, KeyType: 'RANGE' }] : []),
        ],
      });
      const attributeTypes = Object.fromEntries(
        (table.Properties.AttributeDefinitions as { AttributeName: string; AttributeType: string }[]).map(
          (a) => [a.AttributeName, a.AttributeType],
        ),
      );
      expect(attributeTypes[definition.partitionKey.name]).toBe(definition.partitionKey.type);
      if (definition.sortKey) expect(attributeTypes[definition.sortKey.name]).toBe(definition.sortKey.type);

      const indexes = (definition.globalIndexes ?? []).map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
          ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' }] : []),
        ],
        Projection: { ProjectionType: 'ALL' },
      }));
      expect(table.Properties.GlobalSecondaryIndexes).toEqual(indexes.length > 0 ? indexes : undefined);

      expect(table.Properties.TimeToLiveSpecification).toEqual(
        definition.timeToLiveAttribute
          ? { AttributeName: definition.timeToLiveAttribute, Enabled: true }
          : undefined,
      );
    },
  );
});

describe('generation queue', () => {
  it('redrives to the dead-letter queue and hides messages for at least 6x the worker timeout', () => {
    const queue = resource(queueId).Properties as Json;
    const workerTimeout = resource(functionId(generationWorker)).Properties.Timeout as number;
    expect(workerTimeout).toBe(runtimeSettings.workerTimeoutSeconds);
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * workerTimeout);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterQueueId, 'Arn'] },
      maxReceiveCount: runtimeSettings.maxReceiveCount,
    });
    expect(runtimeSettings.maxReceiveCount).toBeGreaterThanOrEqual(5);
  });

  it('encrypts both queues and denies requests without TLS', () => {
    for (const id of [queueId, deadLetterQueueId]) {
      expect(resource(id).Properties.SqsManagedSseEnabled).toBe(true);
      const policy = ofType('AWS::SQS::QueuePolicy').find(([, p]) => mentions(p.Properties.Queues, id));
      expect(policy).toBeDefined();
      const statements = (
        (policy as [string, CfnResource])[1].Properties.PolicyDocument as { Statement: Statement[] }
      ).Statement;
      expect(statements).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('feeds the worker in batches with partial batch failure reporting', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: functionId(generationWorker) },
      BatchSize: runtimeSettings.workerBatchSize,
      ScalingConfig: { MaximumConcurrency: runtimeSettings.workerMaxConcurrency },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(actionsOn(generationWorker, queueId)).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']),
    );
  });

  it('feeds the webhook dispatcher from its own queue, in batches with partial batch failure reporting', () => {
    const webhookQueueId = resourceIdMatching('AWS::SQS::Queue', /^WebhooksQueue[0-9A-F]{8}$/);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [webhookQueueId, 'Arn'] },
      FunctionName: { Ref: functionId(webhookDispatcher) },
      BatchSize: webhookSettings.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(actionsOn(webhookDispatcher, webhookQueueId)).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage']),
    );
    expect(actionsOn(generationWorker, webhookQueueId)).toEqual(expect.arrayContaining(['sqs:SendMessage']));
    expect(actionsOn(generationWorker, webhookQueueId)).not.toContain('sqs:ReceiveMessage');
  });
});

describe('web ACL on the API stage', () => {
  it('blocks (429, our JSON) a client address past its rate, on the stage, before API Gateway and the authorizer', () => {
    const [aclId, acl] = only(ofType('AWS::WAFv2::WebACL'), 'web ACL');
    expect(acl.Properties).toMatchObject({
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      CustomResponseBodies: {
        tooManyRequests: {
          ContentType: 'APPLICATION_JSON',
          Content: JSON.stringify(errorBodies.tooManyRequests),
        },
      },
    });
    expect(acl.Properties.Rules).toEqual([
      expect.objectContaining({
        Statement: {
          RateBasedStatement: {
            AggregateKeyType: 'IP',
            Limit: RATE_PER_ADDRESS.limit,
            EvaluationWindowSec: RATE_PER_ADDRESS.windowSeconds,
          },
        },
        Action: {
          Block: {
            CustomResponse: expect.objectContaining({
              ResponseCode: 429,
              CustomResponseBodyKey: 'tooManyRequests',
            }),
          },
        },
      }),
    ]);
    const [, association] = only(ofType('AWS::WAFv2::WebACLAssociation'), 'web ACL association');
    expect(mentions(association.Properties.WebACLArn, aclId)).toBe(true);
    expect(mentions(association.Properties.ResourceArn, restApiId)).toBe(true);
    const [stageId] = only(ofType('AWS::ApiGateway::Stage'), 'stage');
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(`"/stages/",{"Ref":"${stageId}"}`);
  });

  it('lets one address use at most a tenth of what the stage lets through per route', () => {
    expect(RATE_PER_ADDRESS.limit / RATE_PER_ADDRESS.windowSeconds).toBeLessThanOrEqual(
      THROTTLING.rateLimit / 10,
    );
  });

  it('is dropped with -c waf=false, and cdk-nag accepts that with a reason', () => {
    const withoutWaf = templateOnlyApp({ ...cdkJson.context, waf: 'false' });
    const stackWithoutWaf = new InkpressStack(withoutWaf, 'Inkpress');
    const types = Object.values(
      Template.fromStack(stackWithoutWaf).toJSON().Resources as Record<string, CfnResource>,
    ).map((resource) => resource.Type);
    expect(types).not.toContain('AWS::WAFv2::WebACL');
    expect(types).not.toContain('AWS::WAFv2::WebACLAssociation');
    const report = new AwsSolutionsChecks(withoutWaf, { verbose: true }).validateScope(stackWithoutWaf);
    expect(report.violations).toEqual([]);
  });
});

describe('site-password key and model secret', () => {
  it('rotates the site-password key and keeps it when the stack is deleted', () => {
    const key = resource(sitePasswordKeyId);
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
  });

  it('grants the key to no function in its key policy (only the account root administers it)', () => {
    const statements = (resource(sitePasswordKeyId).Properties.KeyPolicy as { Statement: Statement[] })
      .Statement;
    expect(statements).toHaveLength(1);
    expect(JSON.stringify(statements[0]?.Principal)).toContain(':root');
  });

  it('lets only the functions that declare it use the key', () => {
    const users = allDefinitions.filter((definition) => actionsOn(definition, sitePasswordKeyId).length > 0);
    expect(users.map((definition) => definition.name).sort()).toEqual(
      allDefinitions
        .filter((definition) => definition.access.sitePasswordKey)
        .map((definition) => definition.name)
        .sort(),
    );
  });

  it('lets the functions that call customer-chosen hosts decrypt no site password: the webhook dispatcher, CreateWebhook and RotateWebhookSecret may use the key for webhook secrets only', () => {
    const siteDecrypters = allDefinitions.filter((definition) =>
      statementsOf(definition).some(
        (statement) =>
          mentions(statement.Resource, sitePasswordKeyId) &&
          actionsOf(statement).includes('kms:Decrypt') &&
          statement.Condition === undefined,
      ),
    );
    expect(siteDecrypters.map((definition) => definition.name)).not.toContain(webhookDispatcher.name);
    // Every function that encrypts or decrypts webhook secrets (composition/webhook-creation.ts's
    // secretCipher) holds the key for them only.
    const webhookSecretUsers = [
      webhookDispatcher,
      ...routes.filter((route) => ['CreateWebhook', 'RotateWebhookSecret'].includes(route.name)),
    ];
    expect(webhookSecretUsers).toHaveLength(3);
    for (const definition of webhookSecretUsers) {
      const keyStatements = statementsOf(definition).filter((statement) =>
        mentions(statement.Resource, sitePasswordKeyId),
      );
      expect(keyStatements.length).toBeGreaterThan(0);
      for (const statement of keyStatements) {
        expect(statement.Condition).toEqual({
          StringEquals: { 'kms:EncryptionContext:purpose': 'webhook-signing-secret' },
        });
      }
    }
    // Who may still decrypt site passwords: the functions that log in to sites.
    expect(siteDecrypters.map((definition) => definition.name).sort()).toEqual(
      allDefinitions
        .filter(
          (definition) =>
            definition.access.sitePasswordKey &&
            definition.access.sitePasswordKey !== 'encrypt' &&
            !definition.access.keyOnlyForWebhookSecrets,
        )
        .map((definition) => definition.name)
        .sort(),
    );
  });

  it('creates the model API key secret with a placeholder, not a generated value', () => {
    const secret = resource(secretId);
    expect(secret.Properties.SecretString).toBe(MODEL_SECRET_PLACEHOLDER);
    expect(secret.Properties.GenerateSecretString).toBeUndefined();
    expect(secret.DeletionPolicy).toBe('Retain');
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(mentions(outputs.ModelApiKeySecretName?.Value, secretId)).toBe(true);
    expect(outputs.ModelApiKeySecretArn?.Value).toEqual({ Ref: secretId });
  });

  it('uses the placeholder that the worker recognises as "no key set yet"', async () => {
    const client = { send: async () => ({ SecretString: MODEL_SECRET_PLACEHOLDER }) };
    await expect(readSecretApiKey(client as unknown as SecretsManagerClient, 'model-secret')).rejects.toThrow(
      'holds no API key yet',
    );
  });
});

describe('sweeper schedule', () => {
  it('invokes the sweeper every sweeperIntervalMinutes', () => {
    const minutes = runtimeSettings.sweeperIntervalMinutes;
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`,
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId(sweeper), 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [functionId(sweeper), 'Arn'] },
    });
  });
});

describe('sweeper concurrency', () => {
  it('runs one sweep at a time: reserved concurrency 1, a tick waits at most a minute, no retries', () => {
    const props = resource(functionId(sweeper)).Properties;
    expect(props.ReservedConcurrentExecutions).toBe(1);
    expect(props.Timeout).toBe(runtimeSettings.sweeperTimeoutSeconds);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId(sweeper) },
      MaximumEventAgeInSeconds: 60,
      MaximumRetryAttempts: 0,
    });
    // A run may outlast the interval (it then delays or drops the next tick), but not by more
    // than the time a tick may wait plus one interval.
    expect(runtimeSettings.sweeperTimeoutSeconds).toBeLessThanOrEqual(
      runtimeSettings.sweeperTickMaxAgeSeconds + runtimeSettings.sweeperIntervalMinutes * 60,
    );
  });

  it('reserves concurrency for no other function', () => {
    const reserved = ofType('AWS::Lambda::Function').filter(
      ([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined,
    );
    expect(reserved.map(([id]) => id)).toEqual([functionId(sweeper)]);
  });
});

describe('alarms', () => {
  const alarms = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
  const topicId = only(
    ofType('AWS::SNS::Topic').map(([id]) => id),
    'alarm topic',
  );
  const stageId = only(
    ofType('AWS::ApiGateway::Stage').map(([id]) => id),
    'stage',
  );
  const atLeast = { ComparisonOperator: 'GreaterThanOrEqualToThreshold', EvaluationPeriods: 1 };

  /** The single-metric alarm on this metric (namespace, name, dimensions). */
  function alarmOn(namespace: string, metricName: string, dimensions: unknown): Json {
    return only(
      alarms.filter(
        (alarm) =>
          alarm.Namespace === namespace &&
          alarm.MetricName === metricName &&
          JSON.stringify(alarm.Dimensions) === JSON.stringify(dimensions),
      ),
      `alarm on ${namespace} ${metricName}`,
    );
  }

  it('alarms on the API 5xx rate of the stage, from a minimum count of 5xx answers', () => {
    const rateAlarm = only(
      alarms.filter((alarm) => Array.isArray(alarm.Metrics)),
      'metric math alarm',
    );
    expect(rateAlarm).toMatchObject({ ...atLeast, Threshold: 5, TreatMissingData: 'notBreaching' });
    const queries = rateAlarm.Metrics as {
      Id: string;
      Expression?: string;
      ReturnData?: boolean;
      MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: unknown }; Stat: string };
    }[];
    const expression = only(
      queries.filter((query) => query.Expression),
      'expression',
    );
    expect(expression.Expression).toBe('IF(errors >= 5, 100 * errors / requests, 0)');
    const stat = (id: string) => queries.find((query) => query.Id === id)?.MetricStat;
    const stageDimensions = [
      { Name: 'ApiName', Value: 'inkpress' },
      { Name: 'Stage', Value: { Ref: stageId } },
    ];
    expect(stat('errors')).toEqual({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5XXError', Dimensions: stageDimensions },
      Period: 300,
      Stat: 'Sum',
    });
    expect(stat('requests')).toEqual({
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Count', Dimensions: stageDimensions },
      Period: 300,
      Stat: 'Sum',
    });
  });

  it.each([['FinalGenerationFailures'], ['FinalPublishFailures']])(
    'alarms on every %s (the EMF metric of functions/shared/metrics.ts)',
    (metricName) => {
      expect(alarmOn('Inkpress', metricName, [{ Name: 'service', Value: 'inkpress' }])).toMatchObject({
        ...atLeast,
        Statistic: 'Sum',
        Threshold: 1,
        TreatMissingData: 'notBreaching',
      });
    },
  );

  it('alarms when the oldest generation message has waited 30 minutes', () => {
    const alarm = alarmOn('AWS/SQS', 'ApproximateAgeOfOldestMessage', [
      { Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } },
    ]);
    expect(alarm).toMatchObject({ ...atLeast, Statistic: 'Maximum', Threshold: 1800 });
  });

  it('alarms while messages sit in the dead-letter queue, and is OK once it is empty or idle', () => {
    const alarm = alarmOn('AWS/SQS', 'ApproximateNumberOfMessagesVisible', [
      { Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterQueueId, 'QueueName'] } },
    ]);
    expect(alarm).toMatchObject({
      ...atLeast,
      Statistic: 'Maximum',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms while messages sit in the webhook dead-letter queue', () => {
    const webhookDeadLetterId = resourceIdMatching('AWS::SQS::Queue', /^WebhooksDeadLetterQueue[0-9A-F]{8}$/);
    const alarm = alarmOn('AWS/SQS', 'ApproximateNumberOfMessagesVisible', [
      { Name: 'QueueName', Value: { 'Fn::GetAtt': [webhookDeadLetterId, 'QueueName'] } },
    ]);
    expect(alarm).toMatchObject({
      ...atLeast,
      Statistic: 'Maximum',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it.each(allDefinitions.map((definition) => [definition.name, definition] as const))(
    'alarms on errors of %s',
    (_name, definition) => {
      expect(
        alarmOn('AWS/Lambda', 'Errors', [{ Name: 'FunctionName', Value: { Ref: functionId(definition) } }]),
      ).toMatchObject({ ...atLeast, Statistic: 'Sum', Threshold: 1 });
    },
  );

  it('notifies an encrypted topic when each alarm fires and when it returns to OK', () => {
    expect(alarms).toHaveLength(allDefinitions.length + 6);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.OKActions).toEqual([{ Ref: topicId }]);
      expect(alarm.AlarmDescription).toEqual(expect.any(String));
    }
    expect(resource(topicId).Properties.KmsMasterKeyId).toBeDefined();
  });

  it('outputs the topic ARN for subscriptions', () => {
    template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
  });
});

describe('cdk-nag', () => {
  it('reports no unacknowledged AwsSolutions finding (errors or warnings)', () => {
    const report = new AwsSolutionsChecks(app, { verbose: true }).validateScope(stack);
    const findings = report.violations.map(
      (violation) =>
        `${violation.severity} ${violation.ruleName}: ${violation.violatingResources
          .map((resource) => resource.constructPath)
          .join(', ')}`,
    );
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });
});
