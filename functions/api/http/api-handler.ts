/**
 * Turns an operation (request in, result out) into an API Gateway proxy handler: reads the
 * account set by the authorizer, applies its rate limit, parses the body, maps errors, adds the
 * request id.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { UnauthenticatedError } from '../../core/errors';
import { optionalEnv } from '../../shared/env';
import { logger } from '../../shared/logger';
import { type FormFields, parseFormBody } from './form-body';
import { enforceAccountRateLimit } from './rate-limit';
import { type ApiResult, errorResult, toProxyResult } from './responses';

export interface ApiRequest {
  accountId: string;
  requestId: string;
  /** Absolute URL of the API root, without a trailing slash (`https://host/stage`). */
  baseUrl: string;
  pathParameters: Record<string, string>;
  query: Record<string, string>;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /** Parsed body fields (empty for requests without a body). */
  fields: FormFields;
  /** The invocation's Lambda context (absent when a handler is called directly, as in tests). */
  lambdaContext?: Context;
}

export type Operation = (request: ApiRequest) => Promise<ApiResult>;

export interface HandlerOptions {
  /** A route without a token (`public` in the route table): `accountId` is empty. */
  public?: boolean;
}

let publicBaseUrl: string | null | undefined;

export function apiHandler(operation: Operation, options: HandlerOptions = {}) {
  return async (event: APIGatewayProxyEvent, context?: Context): Promise<APIGatewayProxyResult> => {
    const requestId = event.requestContext?.requestId ?? context?.awsRequestId ?? 'unknown';
    logger.appendKeys({ requestId });
    try {
      const accountId = event.requestContext?.authorizer?.accountId;
      if (!options.public) {
        if (typeof accountId !== 'string' || accountId === '') throw new UnauthenticatedError();
        await enforceAccountRateLimit(accountId);
      }
      const fields = await parseFormBody({
        body: event.body,
        isBase64Encoded: event.isBase64Encoded,
        contentType: header(event, 'content-type'),
      });
      const result = await operation({
        accountId: typeof accountId === 'string' ? accountId : '',
        requestId,
        baseUrl: baseUrlOf(event),
        pathParameters: definedValues(event.pathParameters),
        query: definedValues(event.queryStringParameters),
        headers: lowerCaseNames(event.headers),
        fields,
        lambdaContext: context,
      });
      logger.info('request', {
        method: event.httpMethod,
        resource: event.resource,
        status: result.statusCode,
      });
      return toProxyResult(result, requestId);
    } catch (error) {
      const result = errorResult(error, requestId);
      logger.info('request', {
        method: event.httpMethod,
        resource: event.resource,
        status: result.statusCode,
      });
      return toProxyResult(result, requestId);
    } finally {
      logger.removeKeys(['requestId']);
    }
  };
}

function header(event: APIGatewayProxyEvent, name: string): string | undefined {
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() === name && value !== undefined) return value;
  }
  return undefined;
}

/** The public API root: host as the client used it, plus any stage or base-path prefix. */
function baseUrlOf(event: APIGatewayProxyEvent): string {
  publicBaseUrl ??= optionalEnv('PUBLIC_BASE_URL')?.replace(/\/+$/, '') ?? null;
  if (publicBaseUrl) return publicBaseUrl;
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  const host = header(event, 'host') ?? event.requestContext.domainName ?? 'localhost';
  const fullPath = event.requestContext.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  return `${proto}://${host}${prefix}`;
}

function lowerCaseNames(headers: Record<string, string | undefined> | null): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) result[name.toLowerCase()] = value;
  }
  return result;
}

function definedValues(record: Record<string, string | undefined> | null): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(record ?? {})) if (value !== undefined) result[key] = value;
  return result;
}
