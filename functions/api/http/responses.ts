/**
 * Every HTTP response body and status of the API comes from here: successes, and the
 * mapping of named domain errors to HTTP (the only place that does it).
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  BatchRowsError,
  ConflictError,
  DomainError,
  MalformedBodyError,
  NotFoundError,
  PayloadTooLargeError,
  RequestInProgressError,
  SameTopicError,
  SiteCallError,
  SiteProblemsError,
  TooManyRequestsError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../core/errors';
import { logger } from '../../shared/logger';

export interface ApiResult {
  statusCode: number;
  body: unknown;
  /** Headers besides the ones every response carries (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  /**
   * An HTML page (the body is its text, or its bytes in `contentEncoding`) that browsers may cache
   * for `cacheSeconds` and ask again for with its `etag` (compressed-page.ts).
   */
  html?: {
    cacheSeconds: number;
    contentSecurityPolicy: string;
    etag?: string;
    contentEncoding?: 'br' | 'gzip';
  };
}

/** What a 401 says about how to authenticate (RFC 6750: a bearer token), wherever it is answered. */
export const UNAUTHENTICATED_HEADERS = { 'WWW-Authenticate': 'Bearer' } as const;

/** Headers on every response of the API, wherever it is answered (handlers, gateway, local server). */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff' } as const;

/** HTTPS only, for two years, subdomains included: sent when deployed (the stack sets INKPRESS_HSTS). */
export const STRICT_TRANSPORT_SECURITY = 'max-age=63072000; includeSubDomains';

export const errorBodies = {
  unauthenticated: { message: 'Unauthenticated.' },
  forbidden: { message: 'Forbidden.' },
  notFound: { message: 'Not found.' },
  methodNotAllowed: { message: 'Method not allowed.' },
  payloadTooLarge: { message: 'The request body is too large.' },
  tooManyRequests: { message: 'Too many requests.' },
  serverError: { message: 'Server error.' },
  serviceUnavailable: { message: 'Service temporarily unavailable.' },
} as const;

/** The body of every 401: the message the design fixes, and what was wrong (AUTHENTICATION_HINTS). */
export function unauthenticatedBody(hint: string): { message: string; hint: string } {
  return { ...errorBodies.unauthenticated, hint };
}

export function ok(body: unknown): ApiResult {
  return { statusCode: 200, body };
}

export function created(body: unknown): ApiResult {
  return { statusCode: 201, body };
}

export function accepted(body: unknown): ApiResult {
  return { statusCode: 202, body };
}

/** Maps an error thrown by a use case to its HTTP result; unknown errors are a logged 500. */
export function errorResult(error: unknown, requestId: string): ApiResult {
  if (error instanceof ValidationError) {
    const problems = error instanceof SiteProblemsError ? { problems: error.problems } : {};
    const rows = error instanceof BatchRowsError ? { rows: error.rows } : {};
    return {
      statusCode: 422,
      body: { message: error.message, errors: error.fieldErrors, ...problems, ...rows },
    };
  }
  if (error instanceof NotFoundError) return { statusCode: 404, body: { message: error.message } };
  if (error instanceof SameTopicError) {
    const { postId, url, title } = error.existingPost;
    return { statusCode: 409, body: { message: error.message, existing_post: { id: postId, url, title } } };
  }
  if (error instanceof ConflictError) return { statusCode: 409, body: { message: error.message } };
  if (error instanceof SiteCallError)
    return { statusCode: error.kind === 'login_refused' ? 409 : 502, body: { message: error.message } };
  if (error instanceof UnauthenticatedError)
    return {
      statusCode: 401,
      body: unauthenticatedBody(error.hint),
      headers: { ...UNAUTHENTICATED_HEADERS },
    };
  if (error instanceof PayloadTooLargeError) return { statusCode: 413, body: { message: error.message } };
  if (error instanceof UnsupportedMediaTypeError)
    return { statusCode: 415, body: { message: error.message } };
  if (error instanceof MalformedBodyError) return { statusCode: 400, body: { message: error.message } };
  if (error instanceof RequestInProgressError) {
    return {
      statusCode: 409,
      body: { message: error.message },
      headers: { 'Retry-After': String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof TooManyRequestsError) {
    return {
      statusCode: 429,
      body: errorBodies.tooManyRequests,
      headers: { 'Retry-After': String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof DomainError) return { statusCode: 400, body: { message: error.message } };
  logger.error('Unhandled error', { error: error instanceof Error ? error : String(error), requestId });
  return { statusCode: 500, body: { ...errorBodies.serverError, request_id: requestId } };
}

/** The proxy result of `result`; `hsts` adds Strict-Transport-Security (deployed, see Config). */
export function toProxyResult(result: ApiResult, requestId: string, hsts: boolean): APIGatewayProxyResult {
  const transportSecurity: Record<string, string> = hsts
    ? { 'Strict-Transport-Security': STRICT_TRANSPORT_SECURITY }
    : {};
  if (result.html) {
    const { etag, contentEncoding } = result.html;
    const bytes = Buffer.isBuffer(result.body) ? result.body : undefined;
    return {
      statusCode: result.statusCode,
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': `public, max-age=${result.html.cacheSeconds}`,
        'Content-Security-Policy': result.html.contentSecurityPolicy,
        ...(etag ? { ETag: etag, Vary: 'Accept, Accept-Encoding' } : {}),
        ...(contentEncoding ? { 'Content-Encoding': contentEncoding } : {}),
        ...SECURITY_HEADERS,
        ...transportSecurity,
        'X-Request-Id': requestId,
      },
      body: bytes ? bytes.toString('base64') : String(result.body),
      ...(bytes ? { isBase64Encoded: true } : {}),
    };
  }
  return {
    statusCode: result.statusCode,
    headers: {
      ...result.headers,
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      ...SECURITY_HEADERS,
      ...transportSecurity,
      'X-Request-Id': requestId,
    },
    body: JSON.stringify(result.body),
  };
}
