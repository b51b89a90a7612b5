import { Duration } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  errorBodies,
  SECURITY_HEADERS,
  STRICT_TRANSPORT_SECURITY,
  UNAUTHENTICATED_HEADERS,
  unauthenticatedBody,
} from '../../functions/api/http/responses';
import { AUTHENTICATION_HINTS } from '../../functions/core/authentication-hints';
import type { HttpMethod } from '../../functions/routes';
import { routes } from '../../functions/routes';
import { runtimeSettings } from '../../functions/shared/runtime-settings';
import type { InkpressFunction } from './inkpress-function';
import type { ServiceFunctions } from './service-functions';

export const STAGE_NAME = 'prod';
export const THROTTLING = { rateLimit: 50, burstLimit: 100 } as const;

/** Methods a client may try on a route; the ones a route lacks answer 405. */
export const ANSWERED_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** Headers of every answer API Gateway gives itself: our JSON, no caching, the security headers. */
const JSON_HEADERS: Record<string, string> = {
  'Content-Type': "'application/json'",
  'Cache-Control': "'no-store'",
  ...Object.fromEntries(Object.entries(SECURITY_HEADERS).map(([name, value]) => [name, `'${value}'`])),
  'Strict-Transport-Security': `'${STRICT_TRANSPORT_SECURITY}'`,
};

/** Where an ACCESS_DENIED answer takes its hint: the authorizer's Deny context. */
export const DENIED_HINT = '$context.authorizer.hint';

/** Gateway responses (errors API Gateway answers itself), in our JSON error shape. */
const GATEWAY_RESPONSES: {
  id: string;
  type: apigateway.ResponseType;
  statusCode?: string;
  body: string;
  headers?: Record<string, string>;
}[] = [
  {
    id: 'Unauthorized',
    type: apigateway.ResponseType.UNAUTHORIZED,
    statusCode: '401',
    // No Authorization header (the authorizer is not called).
    body: JSON.stringify(unauthenticatedBody(AUTHENTICATION_HINTS.missing)),
    headers: UNAUTHENTICATED_HEADERS,
  },
  // A REST API answers an unknown path with MISSING_AUTHENTICATION_TOKEN: it is a 404 to us.
  {
    id: 'NotFound',
    type: apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN,
    statusCode: '404',
    body: JSON.stringify(errorBodies.notFound),
  },
  // The authorizer denies unknown tokens with a Deny policy (so that only real failures count
  // as its errors); nothing else in this API denies access, so a denial is a 401 to clients.
  {
    id: 'AccessDenied',
    type: apigateway.ResponseType.ACCESS_DENIED,
    statusCode: '401',
    // The Deny's context names what was wrong (authentication-hints.ts: no quote or backslash).
    body: JSON.stringify(unauthenticatedBody(DENIED_HINT)),
    headers: UNAUTHENTICATED_HEADERS,
  },
  {
    id: 'RequestTooLarge',
    type: apigateway.ResponseType.REQUEST_TOO_LARGE,
    statusCode: '413',
    body: JSON.stringify(errorBodies.payloadTooLarge),
  },
  {
    id: 'Throttled',
    type: apigateway.ResponseType.THROTTLED,
    statusCode: '429',
    body: JSON.stringify(errorBodies.tooManyRequests),
    headers: { 'Retry-After': '1' },
  },
  {
    id: 'QuotaExceeded',
    type: apigateway.ResponseType.QUOTA_EXCEEDED,
    statusCode: '429',
    body: JSON.stringify(errorBodies.tooManyRequests),
    headers: { 'Retry-After': '1' },
  },
  // Other client errors keep their status; `messageString` is API Gateway's message, JSON-quoted.
  {
    id: 'Default4xx',
    type: apigateway.ResponseType.DEFAULT_4XX,
    body: '{"message":$context.error.messageString}',
  },
  {
    id: 'IntegrationTimeout',
    type: apigateway.ResponseType.INTEGRATION_TIMEOUT,
    statusCode: '504',
    body: JSON.stringify({ ...errorBodies.serverError, request_id: '$context.requestId' }),
  },
  {
    id: 'Default5xx',
    type: apigateway.ResponseType.DEFAULT_5XX,
    statusCode: '500',
    body: JSON.stringify({ ...errorBodies.serverError, request_id: '$context.requestId' }),
  },
];

export interface InkpressApiProps {
  functions: ServiceFunctions;
}

/**
 * The public REST API: one resource per route path, each method proxied to its route's
 * Lambda behind the bearer-token authorizer; 405 for the methods a route lacks; JSON
 * gateway responses; stage `prod` with throttling, access logs and metrics.
 */
export class InkpressApi extends Construct {
  readonly restApi: apigateway.RestApi;
  readonly authorizer: apigateway.TokenAuthorizer;
  readonly accessLogGroup: logs.LogGroup;
  /** The mock methods answering 405 (they need no authorization). */
  readonly methodNotAllowedMethods: apigateway.Method[] = [];
  /** The methods of public routes (OpenAPI document, docs page), answered without a token. */
  readonly publicMethods: apigateway.Method[] = [];

  constructor(scope: Construct, id: string, props: InkpressApiProps) {
    super(scope, id);
    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
    });

    this.restApi = new apigateway.RestApi(this, 'RestApi', {
      restApiName: 'inkpress',
      description: 'Inkpress: SEO article generation and WordPress publishing',
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      // Multipart bodies reach the handlers base64-encoded, byte for byte.
      binaryMediaTypes: [...runtimeSettings.binaryMediaTypes],
      cloudWatchRole: true,
      deployOptions: {
        stageName: STAGE_NAME,
        throttlingRateLimit: THROTTLING.rateLimit,
        throttlingBurstLimit: THROTTLING.burstLimit,
        metricsEnabled: true,
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: apigateway.AccessLogFormat.custom(
          JSON.stringify({
            requestId: apigateway.AccessLogField.contextRequestId(),
            ip: apigateway.AccessLogField.contextIdentitySourceIp(),
            requestTime: apigateway.AccessLogField.contextRequestTime(),
            method: apigateway.AccessLogField.contextHttpMethod(),
            resource: apigateway.AccessLogField.contextResourcePath(),
            status: apigateway.AccessLogField.contextStatus(),
            responseLength: apigateway.AccessLogField.contextResponseLength(),
            latencyMs: apigateway.AccessLogField.contextResponseLatency(),
            accountId: apigateway.AccessLogField.contextAuthorizerPrincipalId(),
            errorType: apigateway.AccessLogField.contextErrorResponseType(),
          }),
        ),
      },
    });

    this.authorizer = new apigateway.TokenAuthorizer(this, 'BearerTokenAuthorizer', {
      handler: props.functions.authorizer,
      identitySource: apigateway.IdentitySource.header('Authorization'),
      resultsCacheTtl: Duration.seconds(runtimeSettings.authorizerCacheSeconds),
    });

    for (const route of routes) {
      this.addRoute(route.path, route.methods, props.functions.forRoute(route), route.public === true);
    }

    for (const response of GATEWAY_RESPONSES) {
      this.restApi.addGatewayResponse(response.id, {
        type: response.type,
        statusCode: response.statusCode,
        responseHeaders: {
          ...JSON_HEADERS,
          ...Object.fromEntries(
            Object.entries(response.headers ?? {}).map(([name, value]) => [name, `'${value}'`]),
          ),
        },
        templates: { 'application/json': response.body },
      });
    }
  }

  private addRoute(path: string, methods: HttpMethod[], fn: InkpressFunction, isPublic: boolean): void {
    const resource = this.restApi.root.resourceForPath(path);
    const integration = new apigateway.LambdaIntegration(fn, { proxy: true, allowTestInvoke: false });
    for (const method of methods) {
      if (isPublic) {
        this.publicMethods.push(
          resource.addMethod(method, integration, { authorizationType: apigateway.AuthorizationType.NONE }),
        );
      } else {
        resource.addMethod(method, integration, { authorizer: this.authorizer });
      }
    }
    const notAllowed = methodNotAllowedIntegration(methods);
    for (const method of ANSWERED_METHODS.filter((m) => !(methods as string[]).includes(m))) {
      this.methodNotAllowedMethods.push(
        resource.addMethod(method, notAllowed, {
          authorizationType: apigateway.AuthorizationType.NONE,
          methodResponses: [
            {
              statusCode: '405',
              responseParameters: {
                ...Object.fromEntries(
                  Object.keys(JSON_HEADERS).map((name) => [`method.response.header.${name}`, true]),
                ),
                'method.response.header.Allow': true,
              },
            },
          ],
        }),
      );
    }
  }
}

/**
 * A mock integration that answers 405 in our JSON error shape with an `Allow` header. Its
 * only integration response is the default one, so it answers 405 whatever the body.
 */
function methodNotAllowedIntegration(allowed: HttpMethod[]): apigateway.MockIntegration {
  const statusTemplate = JSON.stringify({ statusCode: 405 });
  return new apigateway.MockIntegration({
    passthroughBehavior: apigateway.PassthroughBehavior.WHEN_NO_MATCH,
    contentHandling: apigateway.ContentHandling.CONVERT_TO_TEXT,
    requestTemplates: {
      'application/json': statusTemplate,
      'application/x-www-form-urlencoded': statusTemplate,
      'multipart/form-data': statusTemplate,
      'text/plain': statusTemplate,
    },
    integrationResponses: [
      {
        statusCode: '405',
        responseParameters: {
          ...Object.fromEntries(
            Object.entries(JSON_HEADERS).map(([name, value]) => [`method.response.header.${name}`, value]),
          ),
          'method.response.header.Allow': `'${allowed.join(', ')}'`,
        },
        responseTemplates: { 'application/json': JSON.stringify(errorBodies.methodNotAllowed) },
      },
    ],
  });
}
