/**
 * What a site's answer is when it is not the plugin's JSON, or what kept it from answering: named
 * alike for the connection doctor's probes and the WordPress client's calls (which hands it to
 * the doctor with its CmsError), so that a firewall or a timeout on the login is named as on the probe.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { SiteObstacle } from '../../core/websites/cms-client';
import type { OutboundError } from './guarded-http';

/**
 * What a failed call was (`limitBytes`: the size the call read at most; `route`: the REST route
 * asked); undefined for failures that are not the site's (a refused address, a redirect Inkpress
 * does not follow).
 */
export function failureObstacle(
  error: OutboundError,
  call: { limitBytes: number; route: string; message?: string },
): SiteObstacle | undefined {
  const detail = call.message ?? error.message;
  switch (error.failure) {
    case 'blocked':
      return { kind: 'blocked', detail };
    case 'unresolved':
      return { kind: 'unresolved', detail };
    case 'tls':
      return { kind: 'tls', detail };
    case 'timeout':
      return { kind: 'timeout', detail };
    case 'too_large':
      return { kind: 'too_large', limitBytes: call.limitBytes, route: call.route };
    case 'network':
      return { kind: 'unreachable', detail };
    case 'redirects':
    case 'bad_redirect':
      return undefined;
  }
}

/** How many places are tried as the start (and end) of the JSON inside other output. */
const MAX_JSON_BOUNDS = 3;
/** A `{` that starts a line or follows markup (`<br />`). */
const JSON_START = /(?:^|[\n>])[ \t]*\{/g;

/**
 * The JSON in the text of an answer that says it is JSON. A site with PHP's `display_errors` on
 * prints its notices (HTML lines) before the plugin's JSON, or after it: the JSON is then looked for from a
 * `{` that starts a line (or follows markup) to a `}` that ends one (or precedes markup), a few of
 * each, within twice the body's length of parsing (a hostile body cannot make it costly). A post
 * the site created is not lost to a notice.
 */
export function jsonIn(body: string): unknown {
  const text = body.replace(/^\uFEFF/, '');
  const whole = parsedOrUndefined(text);
  if (whole !== undefined) return whole;
  const starts: number[] = [];
  for (const match of text.matchAll(JSON_START)) {
    starts.push(match.index + match[0].length - 1);
    if (starts.length === MAX_JSON_BOUNDS) break;
  }
  const ends = lastJsonEnds(text);
  let budget = 2 * text.length;
  for (const start of starts) {
    for (const end of ends) {
      const length = end + 1 - start;
      if (length <= 0 || length > budget) break;
      budget -= length;
      const found = parsedOrUndefined(text.slice(start, end + 1));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The last few `}` that end the text or a line, or come right before markup; the last first. */
function lastJsonEnds(text: string): number[] {
  const ends: number[] = [];
  for (
    let at = text.lastIndexOf('}');
    at >= 0 && ends.length < MAX_JSON_BOUNDS;
    at = text.lastIndexOf('}', at - 1)
  ) {
    let next = at + 1;
    while (next < text.length && ' \t\r'.includes(text.charAt(next))) next++;
    if (next === text.length || text.charAt(next) === '\n' || text.charAt(next) === '<') ends.push(at);
    if (at === 0) break;
  }
  return ends;
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A page (or anything not JSON) where the REST API's JSON was expected. */
export function pageObstacle(
  status: number,
  headers: IncomingHttpHeaders,
  text: string,
  type: string,
): SiteObstacle {
  const kind = type === '' ? 'no content type' : type;
  const vendor = firewallOf(headers, text);
  const challengeWords = CHALLENGE_WORDS.test(text);
  if (vendor?.page || ((vendor !== undefined || challengeWords) && BLOCK_STATUSES.has(status))) {
    return { kind: 'challenge', status, vendor: vendor?.name };
  }
  if (status >= 500) return { kind: 'server_error', status, detail: `HTTP ${status} with ${kind}` };
  if ([401, 403, 406, 429, 451].includes(status)) {
    return {
      kind: 'rest_blocked',
      status,
      detail: `HTTP ${status} with ${kind} instead of the REST API's JSON (a web server rule or security layer refuses REST requests)`,
    };
  }
  if (isWordPress(headers, text)) {
    return {
      kind: 'rest_blocked',
      status,
      detail: `WordPress answers REST API addresses with a page (HTTP ${status} ${kind}): the REST API is turned off`,
    };
  }
  return { kind: 'not_wordpress', status, detail: `HTTP ${status} with ${kind} for a REST API address` };
}

/** Statuses firewalls answer a challenge or block with. */
const BLOCK_STATUSES = new Set([403, 406, 429, 503]);
const CHALLENGE_WORDS =
  /captcha|challenge-form|are you (?:a )?human|checking your browser|verify you are human|access denied|request (?:was )?blocked|web application firewall/i;

interface Firewall {
  name: string;
  /** Seen in a page (or header) only the firewall's challenge or block shows (not on every answer it passes on). */
  page: boolean;
}

/**
 * Which firewall an answer names: its challenge or block page, or (weaker: it also passes the
 * site's own pages on) its headers.
 */
function firewallOf(headers: IncomingHttpHeaders, text: string): Firewall | undefined {
  const server = headerOf(headers, 'server') ?? '';
  for (const { name, page, challengeHeader, header } of FIREWALLS) {
    if (page.test(text) || challengeHeader?.(headers)) return { name, page: true };
    if (header(headers, server)) return { name, page: false };
  }
  return undefined;
}

const FIREWALLS: {
  name: string;
  /** Marks of its challenge or block page. */
  page: RegExp;
  /** A header only its challenge or block carries. */
  challengeHeader?: (headers: IncomingHttpHeaders) => boolean;
  /** Headers on every answer it passes on. */
  header: (headers: IncomingHttpHeaders, server: string) => boolean;
}[] = [
  {
    name: 'Cloudflare',
    // Not `challenge-platform`: its bot-detection script (/cdn-cgi/challenge-platform/scripts/jsd/main.js)
    // is on the site's own pages too.
    page: /cf-chl|cf_chl_|Attention Required! \| Cloudflare|cf-error-details|<title>Just a moment\.\.\.<\/title>/i,
    challengeHeader: (headers) => /challenge/i.test(headerOf(headers, 'cf-mitigated') ?? ''),
    header: (headers, server) => headers['cf-ray'] !== undefined || /cloudflare/i.test(server),
  },
  {
    name: 'Sucuri',
    page: /Sucuri WebSite Firewall|sucuri_cloudproxy|cloudproxy@sucuri/i,
    header: (headers, server) =>
      headers['x-sucuri-id'] !== undefined ||
      headers['x-sucuri-block'] !== undefined ||
      /sucuri/i.test(server),
  },
  {
    name: 'Wordfence',
    page: /Generated by Wordfence|Your access to this site has been limited by the site owner/i,
    header: () => false,
  },
  {
    name: 'Imperva',
    page: /Incapsula incident ID|_Incapsula_Resource/i,
    header: (headers) =>
      headers['x-iinfo'] !== undefined || /imperva|incapsula/i.test(headerOf(headers, 'x-cdn') ?? ''),
  },
  {
    name: 'SiteGround',
    page: /sgcaptcha/i,
    header: () => false,
  },
  {
    name: 'ModSecurity',
    page: /Mod_Security|ModSecurity/i,
    header: () => false,
  },
  {
    name: 'Akamai',
    page: /errors\.edgesuite\.net/i,
    header: (_headers, server) => /AkamaiGHost/i.test(server),
  },
  {
    name: 'DDoS-Guard',
    page: /ddos-guard/i,
    header: (_headers, server) => /ddos-guard/i.test(server),
  },
];

/** WordPress's marks on a page: its REST API link header, or its asset paths. */
function isWordPress(headers: IncomingHttpHeaders, text: string): boolean {
  return (
    /api\.w\.org/i.test(headerOf(headers, 'link') ?? '') ||
    /wp-content\/|wp-includes\/|api\.w\.org/i.test(text)
  );
}

export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
