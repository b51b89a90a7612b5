/**
 * Loads the sample events of `events/` (the same ones `sam local invoke` uses) and adapts
 * them to one test: account, path parameters, query and body.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';

const eventsDir = path.join(__dirname, '..', '..', 'events');

export function loadEvent<T = unknown>(relativePath: string): T {
  return JSON.parse(readFileSync(path.join(eventsDir, relativePath), 'utf8')) as T;
}

export interface ApiEventOverrides {
  accountId?: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  body?: string | Buffer;
  contentType?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

export function apiEvent(name: string, overrides: ApiEventOverrides = {}): APIGatewayProxyEvent {
  const event = loadEvent<APIGatewayProxyEvent>(`api/${name}.json`);
  const pathParameters = overrides.pathParameters ?? event.pathParameters;
  let resolvedPath = event.resource;
  for (const [key, value] of Object.entries(pathParameters ?? {})) {
    resolvedPath = resolvedPath.replace(`{${key}}`, value ?? '');
  }
  const body = overrides.body;
  return {
    ...event,
    path: resolvedPath,
    pathParameters: pathParameters ?? null,
    queryStringParameters: overrides.query ?? event.queryStringParameters,
    headers: {
      ...event.headers,
      ...(overrides.contentType ? { 'Content-Type': overrides.contentType } : {}),
      ...overrides.headers,
    },
    body: body === undefined ? event.body : Buffer.isBuffer(body) ? body.toString('base64') : body,
    isBase64Encoded: Buffer.isBuffer(body) ? true : body === undefined ? event.isBase64Encoded : false,
    requestContext: {
      ...event.requestContext,
      path: `/prod${resolvedPath}`,
      authorizer:
        overrides.accountId === undefined
          ? event.requestContext.authorizer
          : { accountId: overrides.accountId, principalId: overrides.accountId },
    },
  };
}
