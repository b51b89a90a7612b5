/**
 * A local stand-in for API Gateway's REST API with Lambda proxy integrations: matches the
 * request against the route table (404, 405 and 413 answered here, with the API's JSON bodies),
 * runs the TOKEN authorizer as API Gateway does, builds the proxy event and calls the handler.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { MAX_BODY_BYTES } from '../functions/api/http/form-body';
import {
  errorBodies,
  toProxyResult,
  UNAUTHENTICATED_HEADERS,
  unauthenticatedBody,
} from '../functions/api/http/responses';
import { AUTHENTICATION_HINTS } from '../functions/core/authentication-hints';
import {
  apiTimeoutSecondsOf,
  authorizer as authorizerFunction,
  type HttpMethod,
  type RouteDefinition,
} from '../functions/routes';
import { runtimeSettings } from '../functions/shared/runtime-settings';
import { lambdaContext } from './lambda-context';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, loadHandler, messageOf } from './local-config';

/** A host name or IP address (IPv6 in brackets), with an optional port. */
const VALID_HOST = /^(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** What a 503 asks clients to wait: restarting an emulator takes a few seconds. */
const RETRY_AFTER_SECONDS = '5';
const STAGE = 'local';

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type TokenHandler = (
  event: APIGatewayTokenAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;
type AuthorizerContext = Record<string, string | number | boolean>;
type Decision =
  | { context: AuthorizerContext }
  | { statusCode: number; body: object; headers?: Record<string, string> };

export interface ApiServerOptions {
  routes: RouteDefinition[];
  log: (line: string) => void;
  /** Log one line per request (method, path, status, time). */
  logRequests?: boolean;
  /** How long the authorizer's decision for a token is reused, as API Gateway does. */
  authorizerCacheSeconds: number;
  /**
   * The emulators now: `down` while one is down (requests to routes get a 503 instead of reaching
   * a handler), `outages` how often one went down. A request that fails (5xx) because one went
   * down while it ran gets the 503 as well.
   */
  emulators?: () => { down: boolean; outages: number };
  /**
   * Runs after the handler of a request that may write (any method but GET and HEAD), before its
   * response is sent, to make what it wrote durable; when it throws, the answer is a 503.
   */
  persistWrites?: () => Promise<void>;
}

export function createApiServer(options: ApiServerOptions) {
  const routes = options.routes
    .map((route) => {
      const source = route.path.replace(/\./g, '\\.').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
      return { route, pattern: new RegExp(`^${source}$`) };
    })
    // Literal segments win over `{param}` segments, as in API Gateway.
    .sort((a, b) => a.route.path.split('{').length - b.route.path.split('{').length);
  const authorize = tokenAuthorizer(options.authorizerCacheSeconds, options.log);

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    // API Gateway routes by its own host names: a Host that is not a host name, or none in
    // HTTP/1.1, never reaches a handler (which builds its links from it).
    const host = req.headers.host ?? (req.httpVersion === '1.0' ? '127.0.0.1' : '');
    if (!VALID_HOST.test(host)) {
      req.resume();
      return sendJson(res, requestId, 400, { message: 'Bad request.' }, { Connection: 'close' });
    }
    const url = new URL(req.url ?? '/', 'http://local');
    const method = req.method as HttpMethod;
    const send = (statusCode: number, body: object, headers: Record<string, string> = {}) => {
      req.resume();
      sendJson(res, requestId, statusCode, body, headers);
    };
    const unavailable = () =>
      send(503, errorBodies.serviceUnavailable, { 'Retry-After': RETRY_AFTER_SECONDS });

    const matching = routes.flatMap(({ route, pattern }) => {
      const found = pattern.exec(url.pathname);
      return found ? [{ route, parameters: found.groups }] : [];
    });
    const match = matching.find(({ route }) => route.methods.includes(method));
    if (!match) {
      if (matching.length === 0) return send(404, errorBodies.notFound);
      const allowed = [...new Set(matching.flatMap(({ route }) => route.methods))].join(', ');
      return send(405, errorBodies.methodNotAllowed, { Allow: allowed });
    }
    const atArrival = options.emulators?.();
    if (atArrival?.down) return unavailable();
    /** Whether an emulator is down, or went down since this request arrived. */
    const emulatorWentDown = () => {
      const now = options.emulators?.();
      return now !== undefined && (now.down || now.outages !== atArrival?.outages);
    };
    const { route, parameters } = match;
    // A route that takes no body (or a GET of one that does) ignores one, whatever its size, as its
    // handler does deployed.
    const body = await readBody(
      req,
      route.takesBody === true && method !== 'GET',
      route.maxBodyBytes ?? MAX_BODY_BYTES,
    );
    if (!body) return send(413, errorBodies.payloadTooLarge, { Connection: 'close' });

    const methodArn = `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:local/${STAGE}/${method}${url.pathname}`;
    // Public routes (the OpenAPI document, the docs page) have no authorizer, as deployed.
    const authorized = route.public ? { context: {} } : await authorize(req.headers.authorization, methodArn);
    if (!('context' in authorized)) {
      if (authorized.statusCode >= 500 && emulatorWentDown()) return unavailable();
      return send(authorized.statusCode, authorized.body, authorized.headers);
    }

    const pathParameters = parameters
      ? Object.fromEntries(Object.entries(parameters).map(([name, value]) => [name, safeDecode(value)]))
      : null;
    const event = proxyEvent(req, url, route.path, pathParameters, body, requestId, authorized.context);
    let result: APIGatewayProxyResult;
    try {
      const handler = loadHandler<ProxyHandler>(route.entry);
      result = await handler(event, lambdaContext(route.name, apiTimeoutSecondsOf(route)));
      if (!Number.isInteger(result?.statusCode)) throw new Error('the handler returned no statusCode');
    } catch (error) {
      options.log(
        `${route.name} failed (request ${requestId}): ${error instanceof Error ? error.stack : error}`,
      );
      return emulatorWentDown() ? unavailable() : send(500, errorBodies.serverError);
    }
    if (result.statusCode >= 500 && emulatorWentDown()) {
      options.log(`${route.name} (request ${requestId}) failed while an emulator was down: answered 503`);
      return unavailable();
    }
    if (options.persistWrites && method !== 'GET') {
      try {
        await options.persistWrites();
      } catch (error) {
        options.log(`${route.name} (request ${requestId}): what it wrote may be lost: ${error}`);
        return unavailable();
      }
    }
    writeResult(res, requestId, result);
  }

  // Host is checked in `handle` (Node's own check answers with an empty body).
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    const requestId = randomUUID();
    const started = Date.now();
    if (options.logRequests) {
      // The path only: a query string may carry what a client should not have put there (a token).
      const path = (req.url ?? '').split('?')[0];
      res.on('finish', () =>
        options.log(`${req.method} ${path} -> ${res.statusCode} (${Date.now() - started} ms)`),
      );
    }
    handle(req, res, requestId).catch((error: unknown) => {
      options.log(`Request ${requestId} failed: ${error instanceof Error ? error.stack : String(error)}`);
      if (res.headersSent) res.destroy();
      else sendJson(res, requestId, 500, errorBodies.serverError);
    });
  });
  // What HTTP cannot parse, and CONNECT (Node hands it over as a raw socket), get a plain 400.
  const badRequest = (socket: Duplex) => {
    const body = JSON.stringify({ message: 'Bad request.' });
    if (!socket.writable) return void socket.destroy();
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nX-Request-Id: ${randomUUID()}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      // Closed for good once written, even if the client never closes its side.
      () => socket.destroy(),
    );
  };
  server.on('clientError', (_error, socket) => badRequest(socket));
  // An `Expect` other than 100-continue (Node's own answer has an empty body).
  server.on('checkExpectation', (req, res) => {
    req.resume();
    // Closed: the body the request announced is never read.
    sendJson(
      res,
      randomUUID(),
      417,
      { message: 'Expectation failed: only 100-continue is supported.' },
      { Connection: 'close' },
    );
  });
  server.on('connect', (_request, socket) => badRequest(socket));

  return {
    listen: (port: number) =>
      new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        const force = setTimeout(() => server.closeAllConnections(), 5_000);
        server.close(() => resolve(clearTimeout(force)));
        server.closeIdleConnections();
      }),
  };
}

/**
 * The TOKEN authorizer as API Gateway runs it: no `Authorization` header is a 401 without
 * calling it, its decision is cached per token, a Deny (or a thrown `Unauthorized`) is the
 * ACCESS_DENIED gateway response (401), and a failure is a 500. The policy it returns always
 * covers the whole API, so its effect is the decision (no policy is evaluated here).
 */
function tokenAuthorizer(cacheSeconds: number, log: (line: string) => void) {
  const cache = new Map<string, { expiresAt: number; result: APIGatewayAuthorizerResult }>();
  // As the UNAUTHORIZED and ACCESS_DENIED gateway responses answer (lib/constructs/inkpress-api.ts).
  const unauthenticated = (hint: string) => ({
    statusCode: 401,
    body: unauthenticatedBody(hint),
    headers: { ...UNAUTHENTICATED_HEADERS },
  });
  return async (authorization: string | undefined, methodArn: string): Promise<Decision> => {
    if (!authorization?.trim()) return unauthenticated(AUTHENTICATION_HINTS.missing);
    const cached = cache.get(authorization);
    let result = cached && cached.expiresAt > Date.now() ? cached.result : undefined;
    if (!result) {
      try {
        result = await loadHandler<TokenHandler>(authorizerFunction.entry)(
          { type: 'TOKEN', authorizationToken: authorization, methodArn },
          lambdaContext(authorizerFunction.name, runtimeSettings.apiTimeoutSeconds),
        );
        if (!result?.principalId || !result.policyDocument)
          throw new Error('no principalId or policyDocument');
      } catch (error) {
        if (error instanceof Error && error.message === 'Unauthorized')
          return unauthenticated(AUTHENTICATION_HINTS.missing);
        log(`Authorizer failed: ${messageOf(error)}`);
        return { statusCode: 500, body: errorBodies.serverError };
      }
      if (cacheSeconds > 0) cache.set(authorization, { expiresAt: Date.now() + cacheSeconds * 1000, result });
    }
    if (result.policyDocument.Statement.some((statement) => statement.Effect !== 'Allow'))
      return unauthenticated(String(result.context?.hint ?? ''));
    return { context: { ...(result.context as AuthorizerContext), principalId: result.principalId } };
  };
}

/** A JSON answer of the gateway itself, with the API's headers; a 5xx other than 503 names its request. */
function sendJson(
  res: ServerResponse,
  requestId: string,
  statusCode: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  const named = statusCode >= 500 && statusCode !== 503 ? { ...body, request_id: requestId } : body;
  writeResult(res, requestId, toProxyResult({ statusCode, body: named, headers }, requestId, false));
}

/** A handler's (or the gateway's) result as API Gateway sends it, with its request id. */
function writeResult(res: ServerResponse, requestId: string, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  res.writeHead(result.statusCode, { ...headers, 'x-amzn-RequestId': requestId });
  res.end(Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8'));
}

/**
 * Reads the body; undefined past the API's limit (the rest is read and dropped). A body that is not
 * `kept` (a route that takes none) is read to its end and dropped: its event has none.
 */
function readBody(req: IncomingMessage, kept: boolean, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (kept && size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(kept && size > limit ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The event of API Gateway's REST proxy integration, served at the root (no stage prefix, so
 * handlers build `http://host:port` links). Bodies of the API's `binaryMediaTypes` arrive
 * base64-encoded, all others as text.
 */
function proxyEvent(
  req: IncomingMessage,
  url: URL,
  resource: string,
  pathParameters: Record<string, string> | null,
  body: Buffer,
  requestId: string,
  authorizer: AuthorizerContext,
): APIGatewayProxyEvent {
  const sourceIp = req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1';
  const host = req.headers.host ?? '127.0.0.1';
  const forwardedFor = req.headers['x-forwarded-for'];
  const headers = req.rawHeaders.flatMap((name, n) => (n % 2 ? [] : [[name, req.rawHeaders[n + 1] ?? '']]));
  const multiValueHeaders = {
    // Host and X-Forwarded-* as API Gateway sets them.
    ...grouped(headers.filter(([name = '']) => !/^(host|x-forwarded-(for|proto))$/i.test(name))),
    Host: [host],
    'X-Forwarded-For': [forwardedFor ? `${forwardedFor}, ${sourceIp}` : sourceIp],
    'X-Forwarded-Proto': ['http'],
  };
  const multiValueQuery = grouped(url.searchParams);
  const last = (values: Record<string, string[]>) =>
    Object.fromEntries(Object.entries(values).map(([name, all]) => [name, all.at(-1) ?? '']));
  const hasQuery = url.searchParams.size > 0;
  const mediaType = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? '';
  const isBase64Encoded =
    body.length > 0 && runtimeSettings.binaryMediaTypes.some((type) => type === mediaType);
  return {
    resource,
    path: url.pathname,
    httpMethod: req.method ?? 'GET',
    headers: last(multiValueHeaders),
    multiValueHeaders,
    queryStringParameters: hasQuery ? last(multiValueQuery) : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters,
    stageVariables: null,
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: 'local',
      authorizer,
      domainName: host.replace(/:\d+$/, ''),
      httpMethod: req.method ?? 'GET',
      identity: { sourceIp, userAgent: req.headers['user-agent'] ?? null },
      path: url.pathname,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTimeEpoch: Date.now(),
      resourcePath: resource,
      stage: STAGE,
    } as APIGatewayProxyEvent['requestContext'],
    body: body.length === 0 ? null : body.toString(isBase64Encoded ? 'base64' : 'utf8'),
    isBase64Encoded,
  };
}

function grouped(pairs: Iterable<string[]>): Record<string, string[]> {
  const values: Record<string, string[]> = {};
  for (const [name = '', value = ''] of pairs) values[name] = [...(values[name] ?? []), value];
  return values;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
