/**
 * Turns an operation (request and dependencies in, result out) into an API Gateway proxy handler
 * for one route of the route table: composes what the route declares, reads the account set by
 * the authorizer, applies its rate limit, parses the body (of a route that takes one; others
 * ignore it), maps errors, adds the request id.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { UnauthenticatedError } from '../../core/errors';
import { functionNamed } from '../../routes';
import { composition } from '../../shared/composition';
import type { Config } from '../../shared/config';
import { logger } from '../../shared/logger';
import { type FormFields, parseFormBody, type RawBody } from './form-body';
import { whileOnTheNetwork } from './overlap';
import { accountRateLimit } from './rate-limit';
import { type ApiResult, errorResult, toProxyResult } from './responses';

export interface ApiRequest {
  /** The HTTP method (a route may answer more than one). */
  method: string;
  accountId: string;
  requestId: string;
  /** Absolute URL of the API root, without a trailing slash (`https://host/stage`). */
  baseUrl: string;
  pathParameters: Record<string, string>;
  /** A parameter given more than once is the list of its values. */
  query: Record<string, string | string[]>;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /** Parsed body fields (empty for requests without a body). */
  fields: FormFields;
  /** The invocation's Lambda context (absent when a handler is called directly, as in tests). */
  lambdaContext?: Context;
}

export type Operation<Deps> = (request: ApiRequest, deps: Deps) => Promise<ApiResult>;

export interface ApiHandlerOptions {
  /**
   * Work the first request needs that would lengthen the cold start at init (building a large
   * schema): run once, when the first request's rate-limit call has been sent, so that it overlaps
   * the wait for DynamoDB instead of adding to init (`npm run bench:first-request`). A public
   * route has no such call: there first use does the work.
   */
  warmUp?: () => void;
  /** Reads the body in place of `parseFormBody` (a route whose body is not one create's fields). */
  parseBody?: (body: RawBody) => Promise<FormFields>;
}

/**
 * The handler of the route named `routeName`: `build` makes the dependencies the operation uses
 * (the adapters the route's `access` declares); a `public` route is answered without a token
 * (`accountId` is empty) and without the rate limit.
 */
export function apiHandler<Deps>(
  routeName: string,
  build: (config: Config) => Deps,
  operation: Operation<Deps>,
  options: ApiHandlerOptions = {},
) {
  const route = functionNamed(routeName);
  let warmUp = options.warmUp;
  const composed = composition(routeName, (config) => ({
    operation: build(config),
    rateLimit: route.public ? undefined : accountRateLimit(config),
  }));
  return async (event: APIGatewayProxyEvent, context?: Context): Promise<APIGatewayProxyResult> => {
    const requestId = event.requestContext?.requestId ?? context?.awsRequestId ?? 'unknown';
    logger.appendKeys({ requestId });
    let hsts = false;
    try {
      const { config, deps } = composed();
      hsts = config.hsts;
      const accountId = event.requestContext?.authorizer?.accountId;
      if (deps.rateLimit) {
        if (typeof accountId !== 'string' || accountId === '') throw new UnauthenticatedError();
        const firstWarmUp = warmUp;
        warmUp = undefined;
        const limited = deps.rateLimit(accountId);
        await Promise.all([limited, firstWarmUp && whileOnTheNetwork(limited, firstWarmUp)]);
      }
      const fields =
        route.takesBody && event.httpMethod !== 'GET'
          ? await (options.parseBody ?? parseFormBody)({
              body: event.body,
              isBase64Encoded: event.isBase64Encoded,
              contentType: header(event, 'content-type'),
              contentEncoding: header(event, 'content-encoding'),
            })
          : {};
      const result = await operation(
        {
          method: event.httpMethod,
          accountId: typeof accountId === 'string' ? accountId : '',
          requestId,
          baseUrl: config.publicBaseUrl || baseUrlOf(event),
          pathParameters: definedValues(event.pathParameters),
          query: queryOf(event),
          headers: lowerCaseNames(event.headers),
          fields,
          lambdaContext: context,
        },
        deps.operation,
      );
      logger.info('request', {
        method: event.httpMethod,
        resource: event.resource,
        status: result.statusCode,
      });
      return toProxyResult(result, requestId, hsts);
    } catch (error) {
      const result = errorResult(error, requestId);
      logger.info('request', {
        method: event.httpMethod,
        resource: event.resource,
        status: result.statusCode,
      });
      return toProxyResult(result, requestId, hsts);
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

/** The API root as the client used it: its host, plus any stage or base-path prefix. */
function baseUrlOf(event: APIGatewayProxyEvent): string {
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

/**
 * The query string's parameters; one given more than once is a list, which the schemas refuse,
 * as a body field sent twice is (API Gateway's single-value map would hold the last copy).
 */
function queryOf(event: APIGatewayProxyEvent): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = definedValues(event.queryStringParameters);
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values && values.length > 1) query[name] = values;
  }
  return query;
}

function definedValues(record: Record<string, string | undefined> | null): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(record ?? {})) if (value !== undefined) result[key] = value;
  return result;
}
