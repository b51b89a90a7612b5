/**
 * HTTP(S) requests to customer sites behind the SSRF guard: every hop (the first URL and each
 * redirect, followed by hand) is checked, and the connection is pinned to the addresses that
 * were checked, so a DNS answer cannot change between the check and the connect. Connect and
 * total timeouts, a redirect limit and a response size cap bound every call.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import {
  BlockedDestinationError,
  checkDestination,
  type DestinationPolicy,
  type ResolvedAddress,
} from './ssrf-guard';

export interface OutboundPolicy extends DestinationPolicy {
  connectTimeoutMs: number;
  /** Deadline of the whole call, redirects included. */
  totalTimeoutMs: number;
  maxResponseBytes: number;
  maxRedirects: number;
  /** Every hop, redirects included, must be https (sources and images when deployed). */
  httpsOnly?: boolean;
}

export interface OutboundRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Only the status line and headers matter (webhooks): answered once they arrive, the body unread. */
  statusOnly?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
  /** A redirect left the original host (or went down to http), so the credentials were not sent there. */
  credentialsDropped?: boolean;
}

/**
 * `bad_redirect`: the site redirected to a Location that is not a valid http(s) address (the
 * site's own fault, not a blocked destination); `unresolved`: the host name has no address (DNS);
 * `tls`: the TLS handshake failed (a certificate that is not valid for the host, or no TLS).
 */
export type OutboundFailure =
  | 'blocked'
  | 'timeout'
  | 'network'
  | 'unresolved'
  | 'tls'
  | 'too_large'
  | 'redirects'
  | 'bad_redirect';

/** A call that got no usable HTTP answer. The message never carries request headers or bodies. */
export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  constructor(
    readonly failure: OutboundFailure,
    message: string,
    /** Whether the request may have reached the server (a connection was open when it failed). */
    readonly requestSent = false,
  ) {
    super(message);
  }
}

/** Headers that carry the site credentials; dropped when a redirect leaves the original host and port. */
const CREDENTIAL_HEADERS = ['authorization', 'x-inkpress-authorization'];
export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Sends a request under the policy, following up to `maxRedirects` redirects, each re-checked
 * (with 0, a redirect is answered as it is).
 * Once a server has answered (with a redirect), any failure says the request was sent: what the
 * first server did with it is unknown.
 */
export async function guardedRequest(
  request: OutboundRequest,
  policy: OutboundPolicy,
): Promise<OutboundResponse> {
  const deadline = Date.now() + policy.totalTimeoutMs;
  let current = { ...request, headers: { ...request.headers } };
  let answered = false;
  /** The first address's host, once a redirect was followed (a failure then says where it happened). */
  let redirectedFrom: string | undefined;
  let credentialsDropped = false;
  try {
    for (let hop = 0; ; hop++) {
      const url = parseUrl(current.url);
      if (policy.httpsOnly && url.protocol !== 'https:') {
        throw new OutboundError(
          'blocked',
          `Only https addresses are fetched, not ${url.protocol}//${url.host}`,
        );
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new OutboundError('timeout', `No answer from ${url.host} in time`);
      let addresses: ResolvedAddress[];
      try {
        addresses = await withTimeout(checkDestination(url, policy), remaining, url);
      } catch (error) {
        if (error instanceof BlockedDestinationError) throw new OutboundError('blocked', error.message);
        if (error instanceof OutboundError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        throw new OutboundError('unresolved', `Could not resolve ${url.hostname}${code ? ` (${code})` : ''}`);
      }
      const response = await sendOnce(url, current, addresses, policy, deadline);
      answered = true;
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.status) || !location) {
        return credentialsDropped ? { ...response, credentialsDropped } : response;
      }
      // None may be followed: the redirect is the answer (its status decides for the caller).
      if (policy.maxRedirects === 0) return response;
      if (hop >= policy.maxRedirects) {
        throw new OutboundError('redirects', `More than ${policy.maxRedirects} redirects from ${url.host}`);
      }
      const target = redirectTarget(location, url);
      const keepCredentials = credentialsKept(url, target);
      if (!keepCredentials) credentialsDropped = true;
      redirectedFrom ??= url.host;
      current = redirected(current, target, response.status, keepCredentials);
    }
  } catch (error) {
    if (answered && error instanceof OutboundError) {
      const to = redirectedFrom === undefined ? undefined : parseUrl(current.url).host;
      const message =
        to === undefined ? error.message : `${redirectedFrom} redirected to ${to}: ${error.message}`;
      throw new OutboundError(error.failure, message, true);
    }
    throw error;
  }
}

/** Where a redirect points; only a valid http(s) address is followed. */
function redirectTarget(location: string, from: URL): URL {
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    throw new OutboundError('bad_redirect', `${from.host} redirected to an invalid address`);
  }
  if (to.protocol !== 'http:' && to.protocol !== 'https:') {
    throw new OutboundError(
      'bad_redirect',
      `${from.host} redirected to a ${to.protocol} address (only http and https are followed)`,
    );
  }
  return to;
}

/**
 * Whether credentials may follow a redirect: only to the same host and port (`URL.host`, where a
 * default port is left out, so an upgrade from http to https on the default ports counts as the
 * same site), and never from https down to http.
 */
export function credentialsKept(from: URL, to: URL): boolean {
  const downgrade = from.protocol === 'https:' && to.protocol !== 'https:';
  return to.host === from.host && !downgrade;
}

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new OutboundError('blocked', 'Invalid URL');
  }
}

/** The next request after a redirect: 303 becomes a GET; credentials stay only where `credentialsKept` allows. */
function redirected(
  previous: OutboundRequest,
  to: URL,
  status: number,
  keepCredentials: boolean,
): OutboundRequest {
  const headers = { ...previous.headers };
  if (!keepCredentials) {
    for (const name of Object.keys(headers)) {
      if (CREDENTIAL_HEADERS.includes(name.toLowerCase())) delete headers[name];
    }
  }
  if (status === 303 && previous.method !== 'GET') {
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase() === 'content-type') delete headers[name];
    }
    return { method: 'GET', url: to.toString(), headers };
  }
  return { ...previous, url: to.toString(), headers };
}

/** OpenSSL's certificate verdicts as Node reports them, and handshakes that failed (EPROTO, ERR_SSL_...). */
const TLS_FAILURE =
  /^(?:CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH|EPROTO$)/;

/** A connection cut while TLS was being set up (after the handshake the same codes are network errors). */
const HANDSHAKE_CUT = new Set(['ECONNRESET', 'EPIPE']);

function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = wanted ? addresses.filter((entry) => entry.family === wanted) : addresses;
    const first = usable[0];
    if (!first) {
      callback(Object.assign(new Error('No checked address for this family'), { code: 'ENOTFOUND' }), '', 4);
      return;
    }
    if (options.all) {
      (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, usable);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

function sendOnce(
  url: URL,
  request: OutboundRequest,
  addresses: ResolvedAddress[],
  policy: OutboundPolicy,
  deadline: number,
): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
    const headers: Record<string, string> = { ...request.headers };
    if (body) headers['Content-Length'] = String(body.length);
    let settled = false;
    /** Ends the call once: timers stopped; the request destroyed unless the answer was read to its end. */
    const settle = (destroy: boolean): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(totalTimer);
      clearTimeout(connectTimer);
      if (destroy) req.destroy();
      return true;
    };
    /** Once connected, the request is on its way: a failure after that may follow its effect. */
    let connected = false;
    /** TCP is up but (over TLS) the handshake is not done: a reset now is the TLS layer's failure. */
    let handshaking = false;
    const fail = (failure: OutboundFailure, message: string) => {
      if (settle(true)) reject(new OutboundError(failure, message, connected));
    };
    const answer = (response: http.IncomingMessage, body: Buffer) =>
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body, url: url.toString() });
    const req = transport.request(url, {
      method: request.method,
      headers,
      agent: false,
      lookup: pinnedLookup(addresses),
    });
    const totalTimer = setTimeout(
      () => fail('timeout', `No complete answer from ${url.host} in time`),
      Math.max(1, deadline - Date.now()),
    );
    let connectTimer: NodeJS.Timeout | undefined;
    req.on('socket', (socket) => {
      if (!socket.connecting) {
        connected = true;
        return;
      }
      connectTimer = setTimeout(
        () => fail('timeout', `Could not connect to ${url.host} in time`),
        policy.connectTimeoutMs,
      );
      socket.once('connect', () => {
        clearTimeout(connectTimer);
        handshaking = url.protocol === 'https:';
      });
      // Over TLS the request is written once the handshake is done: a failed handshake sent nothing.
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
        connected = true;
        handshaking = false;
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'network error';
      if (url.protocol === 'https:' && TLS_FAILURE.test(code)) {
        fail(
          'tls',
          `HTTPS to ${url.host} failed: its certificate is not valid for it, or it does not speak TLS (${code})`,
        );
        return;
      }
      if (handshaking && HANDSHAKE_CUT.has(code)) {
        // The server took the connection and closed it on our TLS hello: no TLS on this port.
        fail(
          'tls',
          `HTTPS to ${url.host} failed: the server closed the connection during the TLS handshake, as a port that does not speak TLS does (${code})`,
        );
        return;
      }
      // llhttp's codes: the server answered, but not in HTTP.
      fail(
        'network',
        code.startsWith('HPE_')
          ? `The answer from ${url.host} is not valid HTTP (${code})`
          : `Could not reach ${url.host} (${code})`,
      );
    });
    req.on('response', (response) => {
      if (request.statusOnly) {
        if (settle(true)) answer(response, Buffer.alloc(0));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > policy.maxResponseBytes) {
          fail('too_large', `The answer from ${url.host} exceeds ${policy.maxResponseBytes} bytes`);
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', () => fail('network', `The answer from ${url.host} was cut off`));
      response.on('aborted', () => fail('network', `The answer from ${url.host} was cut off`));
      response.on('end', () => {
        if (settle(false)) answer(response, Buffer.concat(chunks));
      });
    });
    req.end(body);
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number, url: URL): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new OutboundError('timeout', `Could not resolve ${url.hostname} in time`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
