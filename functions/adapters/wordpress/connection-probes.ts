/**
 * The connection doctor's requests to a WordPress site, through the SSRF guard, each read for
 * what answered it: the plugin's anonymous probe route (`?rest_route=/inkpress/v1/probe`, plugin
 * 1.5.0+), its namespace, and WordPress core's `users/me` for an application password. Redirects
 * are never followed (a redirect is a finding); an answer that is not the expected JSON is named
 * (a firewall's challenge page, a REST API turned off, a server error, not WordPress).
 */
import * as z from 'zod/mini';
import type { SiteAccess } from '../../core/websites/cms-client';
import type { ConnectionProbes, CoreUserProbe, PluginProbe, SiteObstacle } from '../../core/websites/ports';
import {
  guardedRequest,
  OutboundError,
  type OutboundPolicy,
  type OutboundResponse,
  REDIRECT_STATUSES,
} from './guarded-http';
import { failureObstacle, headerOf, jsonIn, pageObstacle } from './site-answers';
import { BlockedDestinationError, checkDestination } from './ssrf-guard';

const USER_AGENT = 'Inkpress/1.0 (+inkpress-connector; connection check)';
/**
 * What the probe sends in each login header: a scheme no authentication reads (not Basic), so
 * that no plugin, core included, takes it for a login; the probe route says whether it arrived.
 */
const HEADER_TEST_VALUE = 'InkpressProbe header-check';
const MAX_PROBE_BYTES = 1024 * 1024;
/** The most a redirect target's address check (DNS) may take. */
const TARGET_CHECK_MS = 2_000;

const probeSchema = z.object({
  plugin_version: z.string(),
  auth_headers: z.object({ authorization: z.boolean(), x_inkpress_authorization: z.boolean() }),
});
const namespaceSchema = z.object({ namespace: z.string() });
const wpErrorSchema = z.object({ code: z.string(), message: z.optional(z.string()) });
const coreUserSchema = z.object({
  username: z.optional(z.string()),
  slug: z.optional(z.string()),
  roles: z.array(z.string()),
  capabilities: z.optional(z.record(z.string(), z.unknown())),
});

type Answer = { status: number; json: unknown } | { obstacle: SiteObstacle };

export class WordPressConnectionProbes implements ConnectionProbes {
  private readonly request: typeof guardedRequest;
  private readonly now: () => number;

  constructor(
    private readonly policy: OutboundPolicy,
    /** The HTTP layer and the clock, for tests that measure the time each call is given. */
    io: { request?: typeof guardedRequest; now?: () => number } = {},
  ) {
    this.request = io.request ?? guardedRequest;
    this.now = io.now ?? Date.now;
  }

  /** At most `timeoutMs` for all of its calls together (each gets what is left). */
  async probePlugin(url: string, timeoutMs: number): Promise<PluginProbe> {
    const deadline = this.now() + timeoutMs;
    const probe = await this.get(url, 'inkpress/v1/probe', { Authorization: HEADER_TEST_VALUE }, deadline);
    if ('obstacle' in probe)
      return probe.obstacle.kind === 'plugin_missing'
        ? this.namespace(url, deadline)
        : { kind: 'obstacle', obstacle: probe.obstacle };
    const found = probeSchema.safeParse(probe.json);
    if (probe.status !== 200 || !found.success) {
      return { kind: 'obstacle', obstacle: jsonObstacle(probe.status, probe.json) };
    }
    const version = found.data.plugin_version;
    let custom = found.data.auth_headers.x_inkpress_authorization;
    if (!found.data.auth_headers.authorization) {
      // Authorization did not arrive: does the plugin's own header? Asked only now, from a plugin
      // that has the probe route (an older one would take the test value for a failed login).
      const fallback = await this.get(
        url,
        'inkpress/v1/probe',
        { 'X-Inkpress-Authorization': HEADER_TEST_VALUE },
        deadline,
      );
      const read = 'json' in fallback ? probeSchema.safeParse(fallback.json) : undefined;
      custom = read?.success === true && read.data.auth_headers.x_inkpress_authorization;
    }
    return {
      kind: 'plugin',
      version,
      headers: { authorization: found.data.auth_headers.authorization, custom },
    };
  }

  async coreUser(site: SiteAccess, timeoutMs: number): Promise<CoreUserProbe> {
    const basic = Buffer.from(`${site.login}:${site.password}`, 'utf8').toString('base64');
    const answer = await this.get(
      site.url,
      'wp/v2/users/me&context=edit',
      { Authorization: `Basic ${basic}` },
      this.now() + timeoutMs,
    );
    if ('obstacle' in answer) {
      // A 404 here is core's REST API without that route (or a refusal dressed as one): nothing known.
      return answer.obstacle.kind === 'plugin_missing'
        ? { kind: 'refused' }
        : { kind: 'obstacle', obstacle: answer.obstacle };
    }
    const user = coreUserSchema.safeParse(answer.json);
    if (answer.status !== 200 || !user.success) return { kind: 'refused' };
    const capabilities = Object.entries(user.data.capabilities ?? {})
      .filter(([, granted]) => granted === true)
      .map(([capability]) => capability);
    return {
      kind: 'user',
      login: user.data.username ?? user.data.slug ?? site.login,
      roles: user.data.roles,
      capabilities,
    };
  }

  /** The plugin's namespace index, asked when the probe route is missing: an older plugin, or none. */
  private async namespace(url: string, deadline: number): Promise<PluginProbe> {
    const answer = await this.get(url, 'inkpress/v1', {}, deadline);
    if ('obstacle' in answer) return { kind: 'obstacle', obstacle: answer.obstacle };
    const index = namespaceSchema.safeParse(answer.json);
    if (answer.status === 200 && index.success && index.data.namespace === 'inkpress/v1') {
      return { kind: 'plugin_without_probe' };
    }
    return { kind: 'obstacle', obstacle: jsonObstacle(answer.status, answer.json) };
  }

  /**
   * One GET of a REST route (`?rest_route=/<route>`) by `deadline` (ms since the epoch), no
   * redirect followed, read as JSON or an obstacle.
   */
  private async get(
    url: string,
    route: string,
    headers: Record<string, string>,
    deadline: number,
  ): Promise<Answer> {
    const timeoutMs = Math.max(1, deadline - this.now());
    let response: OutboundResponse;
    try {
      response = await this.request(
        {
          method: 'GET',
          url: `${url.replace(/\/+$/, '')}/?rest_route=/${route}`,
          headers: { Accept: 'application/json', 'User-Agent': USER_AGENT, ...headers },
        },
        {
          ...this.policy,
          maxRedirects: 0,
          totalTimeoutMs: timeoutMs,
          connectTimeoutMs: Math.min(this.policy.connectTimeoutMs, timeoutMs),
          maxResponseBytes: Math.min(this.policy.maxResponseBytes, MAX_PROBE_BYTES),
        },
      );
    } catch (error) {
      if (error instanceof OutboundError) {
        const obstacle = failureObstacle(error, { limitBytes: MAX_PROBE_BYTES, route });
        // No redirect is followed here: every failure is the site's.
        return { obstacle: obstacle ?? { kind: 'unreachable', detail: error.message } };
      }
      throw error;
    }
    const answer = read(response);
    if ('obstacle' in answer && answer.obstacle.kind === 'redirected') {
      const refused = await this.refusedTarget(answer.obstacle.location, Math.max(1, deadline - this.now()));
      if (refused !== undefined) return { obstacle: { ...answer.obstacle, refused } };
    }
    return answer;
  }

  /**
   * Why the URL policy would refuse a redirect's target (a private, loopback, ... address, as
   * the guard says), so that it is never suggested; undefined when it may be called, or when
   * that is not known in time (its name does not resolve). The scheme is the doctor's to judge.
   */
  private async refusedTarget(location: string, timeoutMs: number): Promise<string | undefined> {
    if (this.policy.allowPrivate) return undefined;
    const target = new URL(location);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        checkDestination(target, this.policy),
        new Promise((resolve) => {
          timer = setTimeout(resolve, Math.min(TARGET_CHECK_MS, timeoutMs));
        }),
      ]);
      return undefined;
    } catch (error) {
      return error instanceof BlockedDestinationError ? error.message : undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** An answer as JSON, or what it is instead (a 404 `rest_no_route` is `plugin_missing`: the route is not there). */
function read(response: OutboundResponse): Answer {
  const { status, headers } = response;
  const location = headerOf(headers, 'location');
  if (REDIRECT_STATUSES.has(status) && location) {
    let absolute: string;
    try {
      absolute = new URL(location, response.url).toString();
    } catch {
      return { obstacle: { kind: 'not_wordpress', status, detail: `HTTP ${status} to an invalid address` } };
    }
    return { obstacle: { kind: 'redirected', status, location: absolute } };
  }
  const text = response.body.toString('utf8');
  const type = (headerOf(headers, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const json = type.includes('json') ? jsonIn(text) : undefined;
  if (json === undefined) return { obstacle: pageObstacle(status, headers, text, type) };
  const code = wpErrorSchema.safeParse(json).data?.code;
  if (status === 404 && code === 'rest_no_route') {
    return { obstacle: { kind: 'plugin_missing', detail: 'no inkpress/v1 routes: rest_no_route' } };
  }
  return { status, json };
}

/** A JSON answer that is not the one asked for. */
function jsonObstacle(status: number, json: unknown): SiteObstacle {
  const error = wpErrorSchema.safeParse(json).data;
  const said = error ? `${error.code}${error.message ? `: ${clip(stripTags(error.message))}` : ''}` : 'JSON';
  if (status >= 500) return { kind: 'server_error', status, detail: `HTTP ${status} (${said})` };
  if (error && !error.code.startsWith('inkpress_') && [401, 403, 404, 405, 429].includes(status)) {
    // A refusal of WordPress's REST layer that is not the plugin's: REST turned off or closed to
    // anonymous requests by a security plugin (rest_cannot_access, rest_login_required, ...).
    return {
      kind: 'rest_blocked',
      status,
      detail: `the REST API answered HTTP ${status} (${said})`,
      ...(status === 401 || status === 403 ? { anonymous: true } : {}),
    };
  }
  return {
    kind: 'not_wordpress',
    status,
    detail: `HTTP ${status} with JSON that is not the plugin's (${said})`,
  };
}

function stripTags(text: string): string {
  return text.replace(/<[^>]*>/g, '');
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
