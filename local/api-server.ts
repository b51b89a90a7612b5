/**
 * A local stand-in for API Gateway's REST API with Lambda proxy integrations: matches the
 * request against the route table, answers 404/405/413 itself, runs the TOKEN authorizer,
 * builds the proxy event API Gateway would send, and calls the route's handler.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { MAX_BODY_BYTES } from '../functions/api/http/form-body';
import { errorBodies, SECURITY_HEADERS } from '../functions/api/http/responses';
import type { RouteDefinition } from '../functions/routes';
import { runtimeSettings } from '../functions/shared/runtime-settings';
import type { HandlerLoader } from './handler-loader';
import { lambdaContext } from './lambda-context';
import type { LocalAuthorizer } from './local-authorizer';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './local-config';

/** API Gateway's own payload limit; larger bodies are not even read. */
const GATEWAY_PAYLOAD_LIMIT = 10 * 1024 * 1024;
const API_ID = 'local';
/** What a 503 asks clients to wait: restarting an emulator takes a few seconds. */
const RETRY_AFTER_SECONDS = 5;
const STAGE = 'local';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  parameterNames: string[];
  parameterCount: number;
}

type RouteMatch =
  | { kind: 'found'; route: RouteDefinition; pathParameters: Record<string, string> | null }
  | { kind: 'notFound' }
  | { kind: 'methodNotAllowed'; allowed: string[] };

export interface ApiServerOptions {
  routes: RouteDefinition[];
  loader: HandlerLoader;
  authorizer: LocalAuthorizer;
  log: (line: string) => void;
  /** Log one line per request (method, path, status, time). */
  logRequests?: boolean;
  /** False while an emulator is down: requests to routes get a 503 instead of reaching a handler. */
  available?: () => boolean;
  /**
   * Runs after a handler of a request that may write (any method but GET and HEAD) and before
   * its response is sent, to make what it wrote durable; when it throws, the answer is a 503.
   */
  persistWrites?: () => Promise<void>;
  maxBodyBytes?: number;
}

export interface ApiServer {
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

export function createApiServer(options: ApiServerOptions): ApiServer {
  const compiled = compileRoutes(options.routes);
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  let listeningPort = 0;

  const server: Server = createServer((req, res) => {
    const requestId = randomUUID();
    const started = Date.now();
    res.on('finish', () => {
      if (options.logRequests) {
        options.log(`${req.method} ${req.url} -> ${res.statusCode} (${Date.now() - started} ms)`);
      }
    });
    handleRequest(req, res, requestId).catch((error: unknown) => {
      options.log(`Request ${requestId} failed: ${error instanceof Error ? error.stack : String(error)}`);
      if (!res.headersSent)
        sendJson(res, 500, { ...errorBodies.serverError, request_id: requestId }, requestId);
      else res.destroy();
    });
  });
  server.on('clientError', (_error, socket) => {
    if (!socket.writable) return;
    const body = JSON.stringify({ message: 'Bad request.' });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  async function handleRequest(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    const method = (req.method ?? 'GET').toUpperCase();
    const match = matchRoute(compiled, url.pathname, method);
    if (match.kind === 'notFound') {
      drain(req);
      sendJson(res, 404, errorBodies.notFound, requestId);
      return;
    }
    if (match.kind === 'methodNotAllowed') {
      drain(req);
      sendJson(res, 405, errorBodies.methodNotAllowed, requestId, { Allow: match.allowed.join(', ') });
      return;
    }

    if (options.available && !options.available()) {
      drain(req);
      sendJson(res, 503, errorBodies.serviceUnavailable, requestId, {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      });
      return;
    }

    const body = await readBody(req, maxBodyBytes);
    if (body === 'tooLarge') {
      sendJson(res, 413, errorBodies.payloadTooLarge, requestId, { Connection: 'close' });
      return;
    }

    const methodArn = `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${API_ID}/${STAGE}/${method}${url.pathname}`;
    const authorizationStarted = Date.now();
    // Public routes (the OpenAPI document, the docs page) have no authorizer, as deployed.
    const decision = match.route.public
      ? ({ allowed: true, context: {} } as const)
      : await options.authorizer.decide(headerValue(req, 'authorization'), methodArn);
    if (!decision.allowed) {
      const errorBody =
        decision.statusCode >= 500 ? { ...decision.body, request_id: requestId } : decision.body;
      sendJson(res, decision.statusCode, errorBody, requestId);
      return;
    }

    const loaded = options.loader.load<ProxyHandler>(match.route.entry);
    if (loaded.status === 'missing') {
      sendJson(
        res,
        501,
        { message: `Not implemented yet: ${match.route.entry} does not exist.`, request_id: requestId },
        requestId,
      );
      return;
    }
    if (loaded.status === 'failed') {
      sendJson(res, 500, { ...errorBodies.serverError, request_id: requestId }, requestId);
      return;
    }

    const event = proxyEvent({
      req,
      url,
      method,
      route: match.route,
      pathParameters: match.pathParameters,
      body,
      requestId,
      localPort: listeningPort,
      authorizer: { ...decision.context, integrationLatency: Date.now() - authorizationStarted },
    });
    let result: APIGatewayProxyResult;
    try {
      result = await loaded.handler(
        event,
        lambdaContext(match.route.name, runtimeSettings.apiTimeoutSeconds),
      );
    } catch (error) {
      options.log(
        `${match.route.name} threw (request ${requestId}): ${error instanceof Error ? error.stack : String(error)}`,
      );
      sendJson(res, 500, { ...errorBodies.serverError, request_id: requestId }, requestId);
      return;
    }
    if (!result || !Number.isInteger(result.statusCode)) {
      options.log(`${match.route.name} returned no statusCode (request ${requestId}).`);
      sendJson(res, 500, { ...errorBodies.serverError, request_id: requestId }, requestId);
      return;
    }
    if (options.persistWrites && method !== 'GET' && method !== 'HEAD') {
      try {
        await options.persistWrites();
      } catch (error) {
        options.log(
          `${match.route.name} (request ${requestId}): what it wrote may be lost: ${error instanceof Error ? error.message : String(error)}`,
        );
        sendJson(res, 503, errorBodies.serviceUnavailable, requestId, {
          'Retry-After': String(RETRY_AFTER_SECONDS),
        });
        return;
      }
    }
    writeProxyResult(res, result, requestId);
  }

  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          listeningPort = (server.address() as AddressInfo).port;
          resolve(listeningPort);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        const force = setTimeout(() => server.closeAllConnections(), 5_000);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

function compileRoutes(routes: RouteDefinition[]): CompiledRoute[] {
  return routes
    .map((route) => {
      const parameterNames: string[] = [];
      const source = route.path
        .split('/')
        .map((segment) => {
          const parameter = /^\{(\w+)\}$/.exec(segment)?.[1];
          if (parameter === undefined) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          parameterNames.push(parameter);
          return '([^/]+)';
        })
        .join('/');
      return {
        route,
        pattern: new RegExp(`^${source}$`),
        parameterNames,
        parameterCount: parameterNames.length,
      };
    })
    .sort((a, b) => a.parameterCount - b.parameterCount);
}

/** Literal segments win over `{param}` segments, as in API Gateway. */
export function matchRoute(routes: CompiledRoute[], pathname: string, method: string): RouteMatch {
  const allowed = new Set<string>();
  for (const compiled of routes) {
    const found = compiled.pattern.exec(pathname);
    if (!found) continue;
    if (!compiled.route.methods.includes(method as RouteDefinition['methods'][number])) {
      for (const allowedMethod of compiled.route.methods) allowed.add(allowedMethod);
      continue;
    }
    if (compiled.parameterNames.length === 0)
      return { kind: 'found', route: compiled.route, pathParameters: null };
    const pathParameters: Record<string, string> = {};
    compiled.parameterNames.forEach((name, index) => {
      pathParameters[name] = safeDecode(found[index + 1] ?? '');
    });
    return { kind: 'found', route: compiled.route, pathParameters };
  }
  return allowed.size > 0 ? { kind: 'methodNotAllowed', allowed: [...allowed] } : { kind: 'notFound' };
}

/** Reads the body; `tooLarge` past `limit` (the rest is drained up to the gateway's own limit). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'tooLarge'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > GATEWAY_PAYLOAD_LIMIT) return Promise.resolve('tooLarge');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > GATEWAY_PAYLOAD_LIMIT) {
        req.pause();
        resolve('tooLarge');
      }
    });
    req.on('end', () => resolve(size > limit ? 'tooLarge' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function drain(req: IncomingMessage): void {
  req.resume();
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/**
 * The REST API's `binaryMediaTypes` (lib/constructs/inkpress-api.ts): bodies of these types reach
 * the handler base64-encoded, byte for byte; all others as UTF-8 text, as API Gateway does.
 */

function isBinaryBody(contentType: string | undefined): boolean {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return (runtimeSettings.binaryMediaTypes as readonly string[]).includes(mediaType);
}

interface ProxyEventInput {
  req: IncomingMessage;
  url: URL;
  method: string;
  route: RouteDefinition;
  pathParameters: Record<string, string> | null;
  body: Buffer;
  requestId: string;
  localPort: number;
  authorizer: Record<string, string | number | boolean>;
}

/** The event of API Gateway's REST proxy integration for this request. */
function proxyEvent(input: ProxyEventInput): APIGatewayProxyEvent {
  const { req, url } = input;
  const multiValueHeaders: Record<string, string[]> = {};
  for (let index = 0; index + 1 < req.rawHeaders.length; index += 2) {
    const name = req.rawHeaders[index] as string;
    const value = req.rawHeaders[index + 1] as string;
    const existing = Object.keys(multiValueHeaders).find((key) => key.toLowerCase() === name.toLowerCase());
    appendValue(multiValueHeaders, existing ?? name, value);
  }
  const setHeader = (name: string, value: string) => {
    for (const key of Object.keys(multiValueHeaders)) {
      if (key.toLowerCase() === name.toLowerCase()) delete multiValueHeaders[key];
    }
    multiValueHeaders[name] = [value];
  };
  const sourceIp = req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1';
  const forwardedFor = headerValue(req, 'x-forwarded-for');
  const host = headerValue(req, 'host') ?? `127.0.0.1:${input.localPort}`;
  setHeader('Host', host);
  setHeader('X-Forwarded-For', forwardedFor ? `${forwardedFor}, ${sourceIp}` : sourceIp);
  setHeader('X-Forwarded-Port', String(input.localPort));
  setHeader('X-Forwarded-Proto', 'http');
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(multiValueHeaders))
    headers[name] = values[values.length - 1] ?? '';

  const multiValueQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) appendValue(multiValueQuery, name, value);
  const query: Record<string, string> = {};
  for (const [name, values] of Object.entries(multiValueQuery)) query[name] = values[values.length - 1] ?? '';
  const hasQuery = Object.keys(query).length > 0;

  const contentType = headerValue(req, 'content-type');
  const isBase64Encoded = input.body.length > 0 && isBinaryBody(contentType);
  const now = new Date();

  return {
    resource: input.route.path,
    path: url.pathname,
    httpMethod: input.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: input.pathParameters,
    stageVariables: null,
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: API_ID,
      authorizer: input.authorizer,
      domainName: host.replace(/:\d+$/, ''),
      domainPrefix: host.split('.')[0]?.replace(/:\d+$/, '') ?? 'local',
      extendedRequestId: input.requestId,
      httpMethod: input.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent: headerValue(req, 'user-agent') ?? null,
        userArn: null,
      },
      // Served at the root (no stage prefix), so handlers build `http://host:port` base URLs.
      path: url.pathname,
      protocol: `HTTP/${req.httpVersion}`,
      requestId: input.requestId,
      requestTime: gatewayTime(now),
      requestTimeEpoch: now.getTime(),
      resourceId: API_ID,
      resourcePath: input.route.path,
      stage: STAGE,
    },
    body: input.body.length === 0 ? null : input.body.toString(isBase64Encoded ? 'base64' : 'utf8'),
    isBase64Encoded,
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `09/Apr/2015:12:34:56 +0000`, the format of `requestContext.requestTime`. */
function gatewayTime(at: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${pad(at.getUTCDate())}/${MONTHS[at.getUTCMonth()]}/${at.getUTCFullYear()}:${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())} +0000`;
}

function writeProxyResult(res: ServerResponse, result: APIGatewayProxyResult, requestId: string): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    headers[name] = values.map(String);
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  headers['x-amzn-RequestId'] = requestId;
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  res.writeHead(result.statusCode, headers);
  res.end(body);
}

function sendJson(
  res: ServerResponse,
  statusCode: number,
  body: unknown,
  requestId: string,
  extraHeaders: Record<string, string> = {},
): void {
  res.writeHead(statusCode, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    ...SECURITY_HEADERS,
    'X-Request-Id': requestId,
    'x-amzn-RequestId': requestId,
    ...extraHeaders,
  });
  res.end(JSON.stringify(body));
}

function appendValue(target: Record<string, string[]>, name: string, value: string): void {
  const values = target[name];
  if (values) values.push(value);
  else target[name] = [value];
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
