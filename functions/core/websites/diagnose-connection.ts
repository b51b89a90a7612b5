/**
 * The connection doctor behind `POST /v1/websites/check` (check-connection.ts) and the `problems`
 * of a website create or update whose site check failed. Each problem is something a request to the site showed (the
 * plugin's anonymous probe route, the login through the plugin, WordPress core's answer about an
 * application password's user), never a guess, with one sentence the site owner can act on.
 *
 * It is no password oracle: the plugin answers one 401 for a wrong password, a user without the
 * role and a user with more power alike, so with a real password all three are `login_refused`.
 * Only an application password, where WordPress core itself tells its user who it is, can be
 * told apart (`role_missing`, `role_too_powerful`).
 */
import { type ConnectionProblem, SiteProblemsError, ValidationError } from '../errors';
import { believedRetryAfter, CmsError, type SiteAccess } from './cms-client';
import { repeatsCredentials } from './credential-echo';
import { isOlderThan, PLUGIN_VERSION_NEEDED, versionOf } from './plugin-version';
import type { ConnectionProbes, LoginHeaders, SiteObstacle } from './ports';
import { registrationError } from './site-failures';
import { normalizeSiteUrl } from './site-url';
import { type TimeBudget, timeBudget } from './time-budget';

/** Every code a problem can have, in the order the doctor looks (docs/api-contract.md says what each means). */
export const PROBLEM_CODES = [
  'dns_unresolved',
  'tls_invalid',
  'timeout',
  'unreachable',
  'redirected',
  'challenge_page',
  'rest_api_blocked',
  'server_error',
  'not_wordpress',
  'plugin_missing',
  'plugin_outdated',
  'auth_header_stripped',
  'login_refused',
  'role_missing',
  'role_too_powerful',
  'login_paused',
  'site_error',
] as const;

export type ProblemCode = (typeof PROBLEM_CODES)[number];

export interface Problem extends ConnectionProblem {
  code: ProblemCode;
}

export interface DoctorDeps {
  probes: ConnectionProbes;
  now?: () => Date;
  /** Plain http site URLs may be registered (local mode): a redirect to one may be suggested. */
  allowPlainHttp?: boolean;
}

/**
 * The time a check, or a create's or update's site check and its diagnosis, spends on the site
 * (API Gateway ends a request at 29 s): one deadline, each call getting what is left of it.
 */
export const CHECK_BUDGET_MS = 22_000;
/** The most a failed create's or update's diagnosis takes of what its budget has left. */
export const FAILURE_DIAGNOSIS_BUDGET_MS = 6_000;
/** The most the anonymous probe (its calls together) or core's users/me takes. */
const PROBE_MS = 8_000;
/** Less than this left is no time for another call: what is known is told. */
const MIN_CALL_MS = 1_000;

/** What a working login told: the plugin's status answer (its version among it). */
export interface LoginResult {
  status: { pluginVersion: string };
}

const REST_BLOCKED_FIX =
  'Allow the REST API for the path /?rest_route=/inkpress/v1/ (in the security plugin or setting that turns it off), then check again.';

/** Where the site owner learns which of the causes of a refused login it is. */
const SETTINGS_PAGE = 'Settings > Inkpress Connector';
const AUTH_FALLBACK_HEADER = 'X-Inkpress-Authorization';

/**
 * Capabilities that make a user too powerful for Inkpress: the plugin's list
 * (Inkpress_Role::TOO_POWERFUL), as WordPress core reports a user's capabilities.
 */
const TOO_POWERFUL = [
  'unfiltered_html',
  'manage_options',
  'edit_users',
  'promote_users',
  'create_users',
  'delete_users',
  'install_plugins',
  'activate_plugins',
  'edit_plugins',
  'edit_themes',
  'switch_themes',
  'edit_files',
  'update_core',
  'manage_network',
];
const EDITOR_ROLE = 'inkpress_editor';

/** What the doctor found: whether the login worked, the plugin's version when told, the problems. */
export interface Diagnosis {
  connected: boolean;
  pluginVersion: string | null;
  problems: Problem[];
}

/**
 * Diagnoses the connection to `site`: the anonymous probe first (nothing that keeps Inkpress
 * from the plugin is worth a login), then `logIn` (the plugin's login, counted toward the
 * account's cap of failed logins) unless no login could arrive.
 */
export async function diagnoseConnection(
  deps: Pick<DoctorDeps, 'probes' | 'now' | 'allowPlainHttp'>,
  site: SiteAccess,
  logIn: (budget: TimeBudget) => Promise<LoginResult>,
): Promise<Diagnosis> {
  const budget = timeBudget(deps.now, CHECK_BUDGET_MS);
  const found = await probeSite(deps, site, budget);
  if ('stop' in found)
    return { connected: false, pluginVersion: found.pluginVersion, problems: found.problems };
  const { problems } = found;
  let login: LoginResult;
  try {
    login = await logIn(budget);
  } catch (error) {
    const refusal = cmsErrorOf(error);
    if (!refusal) throw error;
    problems.push(...(await loginProblems(deps, site, refusal, found, budget)));
    return { connected: false, pluginVersion: found.pluginVersion, problems };
  }
  if (!found.versionFromLogin) return { connected: true, pluginVersion: found.pluginVersion, problems };
  // A plugin without the probe route, or a probe refused: the login that just worked tells its version.
  const pluginVersion = shownVersion(site, login.status.pluginVersion);
  const told = problems.map((found) => (found.code === 'plugin_outdated' ? outdated(pluginVersion) : found));
  if (found.anonymousRefusal && pluginVersion !== null && isOlderThan(pluginVersion, PLUGIN_VERSION_NEEDED)) {
    told.push(outdated(pluginVersion));
  }
  return { connected: true, pluginVersion, problems: told };
}

/** What is assumed of a site the probe did not reach: nothing. */
const UNPROBED: Reached = {
  problems: [],
  pluginVersion: null,
  headers: undefined,
  versionFromLogin: false,
  pluginFound: false,
};

/** A website create's or update's site check as `withDiagnosis` runs it. */
export interface SiteCheck {
  /** The time the check and its diagnosis have, together. */
  budget: TimeBudget;
  /**
   * After a refused login: whether it certainly never reached the plugin (the probe saw neither
   * login header arrive), so that it cost no failed login. Absent without the probes.
   */
  loginNotArrived?: () => Promise<boolean>;
}

/** The 422 on `url` of a login refused because no login header reaches WordPress. */
export const NO_LOGIN_ARRIVES_MESSAGE =
  'The web server or a proxy in front of WordPress removes both login headers (Authorization and X-Inkpress-Authorization), so no login reaches the plugin: see problems for the fix.';

/**
 * Runs `verify` (a website create's or update's site check) and, when the site refused or
 * failed it, throws its 422 with the doctor's problems (when `probes` is given): the anonymous
 * probe (made once, by `loginNotArrived` or here), then the login's failure read like the check
 * reads it. No second login through the plugin is made.
 */
export async function withDiagnosis<T>(
  deps: { probes?: ConnectionProbes; now?: () => Date; allowPlainHttp?: boolean },
  site: SiteAccess,
  verify: (check: SiteCheck) => Promise<T>,
): Promise<T> {
  // One deadline for the site check and its diagnosis.
  const budget = timeBudget(deps.now, CHECK_BUDGET_MS);
  const { probes, now, allowPlainHttp } = deps;
  let diagnosis: { budget: TimeBudget; probed: Promise<Probed> } | undefined;
  /** The diagnosis's probe, made once, within what is left (at most FAILURE_DIAGNOSIS_BUDGET_MS). */
  const diagnose = (doctor: Pick<DoctorDeps, 'probes' | 'now' | 'allowPlainHttp'>) => {
    if (diagnosis) return diagnosis;
    const within = timeBudget(now, Math.min(FAILURE_DIAGNOSIS_BUDGET_MS, budget.left()));
    // No time left for the probe: the login's own failure is all there is to tell.
    const probed = within.left() >= MIN_CALL_MS ? probeSite(doctor, site, within) : Promise.resolve(UNPROBED);
    diagnosis = { budget: within, probed };
    return diagnosis;
  };
  const loginNotArrived = probes
    ? async () => {
        const found = await diagnose({ probes, now, allowPlainHttp }).probed.catch(() => undefined);
        return found !== undefined && 'stop' in found && found.noLoginArrives === true;
      }
    : undefined;
  try {
    return await verify({ budget, ...(loginNotArrived ? { loginNotArrived } : {}) });
  } catch (error) {
    const failure = cmsErrorOf(error);
    // A blocked address is a bad `url`, not a site to diagnose (nor to call again).
    if (!failure || failure.reason === 'blocked' || !probes || !(error instanceof ValidationError)) {
      throw error;
    }
    const doctor = { probes, now, allowPlainHttp };
    const { budget: within, probed } = diagnose(doctor);
    const found = await probed;
    if ('stop' in found) {
      // Not the user name or the password: no login reached the plugin to be refused.
      const fields =
        failure.reason === 'unauthorized' && found.noLoginArrives
          ? { url: [NO_LOGIN_ARRIVES_MESSAGE] }
          : error.fieldErrors;
      throw new SiteProblemsError(fields, found.problems);
    }
    const problems = [...found.problems, ...(await loginProblems(doctor, site, failure, found, within))];
    throw new SiteProblemsError(error.fieldErrors, problems);
  }
}

type Probed =
  | {
      stop: true;
      problems: Problem[];
      pluginVersion: string | null;
      /** Neither login header reaches WordPress: a login cannot arrive. */
      noLoginArrives?: true;
    }
  | Reached;

/** A probe after which a login is worth trying. */
interface Reached {
  problems: Problem[];
  pluginVersion: string | null;
  headers: LoginHeaders | undefined;
  /** A plugin without the probe route, or a probe refused: its version is told by a login that works. */
  versionFromLogin: boolean;
  /** The probe found the plugin (its route or its namespace answered). */
  pluginFound: boolean;
  /**
   * The REST API refused the anonymous probe (a security plugin's 401/403): the login may still
   * pass, so this is a problem only when the login is refused alike.
   */
  anonymousRefusal?: Problem;
}

/** The anonymous probe: what keeps Inkpress from the plugin, its version, the login headers. */
async function probeSite(
  deps: Pick<DoctorDeps, 'probes' | 'allowPlainHttp'>,
  site: SiteAccess,
  budget: TimeBudget,
): Promise<Probed> {
  const probe = await deps.probes.probePlugin(site.url, budget.next(PROBE_MS));
  if (probe.kind === 'obstacle') {
    const found = obstacleProblem(site, probe.obstacle, deps.allowPlainHttp);
    if (probe.obstacle.kind === 'rest_blocked' && probe.obstacle.anonymous) {
      return {
        problems: [],
        pluginVersion: null,
        headers: undefined,
        versionFromLogin: true,
        pluginFound: false,
        anonymousRefusal: found,
      };
    }
    return { stop: true, problems: [found], pluginVersion: null };
  }
  if (probe.kind === 'plugin_without_probe') {
    return {
      problems: [outdated(null)],
      pluginVersion: null,
      headers: undefined,
      versionFromLogin: true,
      pluginFound: true,
    };
  }
  const problems: Problem[] = [];
  const version = shownVersion(site, probe.version);
  if (version === null) problems.push(notAVersion());
  else if (isOlderThan(version, PLUGIN_VERSION_NEEDED)) problems.push(outdated(version));
  if (!probe.headers.authorization) {
    problems.push(headerStripped(probe.headers.custom));
    // Neither header arrives: a login would arrive as no login at all, and prove nothing.
    if (!probe.headers.custom) return { stop: true, problems, pluginVersion: version, noLoginArrives: true };
  }
  return {
    problems,
    pluginVersion: version,
    headers: probe.headers,
    versionFromLogin: false,
    pluginFound: true,
  };
}

/** What a login the plugin did not accept means. */
async function loginProblems(
  deps: Pick<DoctorDeps, 'probes' | 'now'>,
  site: SiteAccess,
  error: CmsError,
  found: Reached,
  budget: TimeBudget,
): Promise<Problem[]> {
  switch (error.reason) {
    case 'unauthorized':
      return [await refusedLogin(deps, site, found.headers, budget)];
    case 'throttled':
      return [paused(deps, error.retryAfterSeconds)];
    case 'plugin_missing':
      // The REST API refuses the login as it refused the anonymous probe.
      if (found.anonymousRefusal && (error.httpStatus === 401 || error.httpStatus === 403)) {
        return [found.anonymousRefusal];
      }
      return [notThePlugin(site, error, found.pluginFound)];
    case 'blocked':
      throw registrationError(error);
    case 'unreachable':
      // What the client saw instead of the plugin (a firewall's page, a timeout), named as the probe names it.
      if (error.obstacle && NAMED_ON_LOGIN.has(error.obstacle.kind))
        return [obstacleProblem(site, error.obstacle)];
      return [siteError(site, error)];
    case 'plugin_error':
    case 'invalid_request':
      return [siteError(site, error)];
  }
}

/** Obstacles a login's failure is named by as the probe's are (a redirect or a foreign page after the probe found the plugin are not). */
const NAMED_ON_LOGIN = new Set<SiteObstacle['kind']>([
  'unresolved',
  'tls',
  'timeout',
  'unreachable',
  'too_large',
  'challenge',
  'rest_blocked',
  'server_error',
]);

function siteError(site: SiteAccess, error: CmsError): Problem {
  return problem(
    'site_error',
    `The login through the plugin failed: ${said(site, error.message)}.`,
    'Try again in a few minutes; if it keeps failing, send this message to whoever runs the site.',
  );
}

/**
 * A login whose answer was not the plugin's (`plugin_missing` to the client). Once the plugin
 * answered the probe it is there: a 2xx Inkpress cannot read is the site's error, a 401/403
 * without the plugin's code a REST API refused before the plugin saw the request.
 */
function notThePlugin(site: SiteAccess, error: CmsError, pluginFound: boolean): Problem {
  const status = error.httpStatus;
  if (status !== undefined && status >= 200 && status < 300) {
    return problem(
      'site_error',
      `The plugin's login answer (HTTP ${status}) is not one Inkpress can read: ${said(site, error.message)}.`,
      `Make sure the Inkpress Connector plugin is an unmodified release (${PLUGIN_VERSION_NEEDED} or later) and that no other plugin, cache or proxy rewrites the answers of /?rest_route=/inkpress/v1/, then check again.`,
    );
  }
  if (status === 401 || status === 403) {
    return problem(
      'rest_api_blocked',
      `WordPress's REST API refused the login's request before the plugin saw it (HTTP ${status}${error.code ? `, ${said(site, error.code)}` : ''}).`,
      REST_BLOCKED_FIX,
    );
  }
  if (pluginFound) {
    return problem(
      'site_error',
      `The plugin answers its probe route, but its login route did not answer: ${said(site, error.message)}.`,
      'Deactivate and activate the Inkpress Connector plugin under Plugins on the site, and make sure no rule blocks /?rest_route=/inkpress/v1/status, then check again.',
    );
  }
  return obstacleProblem(site, { kind: 'plugin_missing', detail: error.message });
}

/**
 * A login the plugin refused. With an application password, WordPress core says who it logs in
 * as (it needs the Authorization header to arrive); anything else stays `login_refused`.
 */
async function refusedLogin(
  deps: Pick<DoctorDeps, 'probes'>,
  site: SiteAccess,
  headers: LoginHeaders | undefined,
  budget: TimeBudget,
): Promise<Problem> {
  if (
    isApplicationPassword(site.password) &&
    headers?.authorization !== false &&
    budget.left() >= MIN_CALL_MS
  ) {
    const who = await deps.probes.coreUser(site, budget.next(PROBE_MS));
    if (who.kind === 'user') {
      const excess = who.capabilities.filter((capability) => TOO_POWERFUL.includes(capability));
      const roles = who.roles.length > 0 ? said(site, who.roles.join(', ')) : 'none';
      // The user's name as WordPress gives it, unless it repeats the credentials.
      const name = repeatsCredentials(who.login, site) ? 'a user' : clip(who.login);
      const user = name === 'a user' ? 'the user' : name;
      if (excess.length > 0) {
        return problem(
          'role_too_powerful',
          `The application password logs in as ${name}, who has more power than the Inkpress Editor role (roles: ${roles}; ${excess.slice(0, 4).join(', ')}${excess.length > 4 ? ', ...' : ''}), so the plugin refuses it.`,
          `Create a user with only the Inkpress Editor role (Users > Add New on the site) and register its login and one of its application passwords instead.`,
        );
      }
      if (!who.roles.includes(EDITOR_ROLE)) {
        return problem(
          'role_missing',
          `The application password logs in as ${name}, who does not have the Inkpress Editor role (roles: ${roles}), so the plugin refuses it.`,
          `Give ${user} the Inkpress Editor role in Users on the site (and no other role), then check again.`,
        );
      }
    }
  }
  return problem(
    'login_refused',
    'The plugin refused the login: it answers alike when the user name or password does not match, when the user lacks the Inkpress Editor role and when the user has more power than that role, so that it tells no one which.',
    `Check the user name and password, and that the user has the Inkpress Editor role and no more power (not an Administrator or Editor): ${SETTINGS_PAGE} on the site lists which users Inkpress can log in as and why not.`,
  );
}

function paused(deps: Pick<DoctorDeps, 'now'>, retryAfterSeconds: number | undefined): Problem {
  const now = deps.now?.() ?? new Date();
  // An unbelievable Retry-After (past a day, not finite) is one the site did not say.
  const seconds = believedRetryAfter(retryAfterSeconds);
  const until =
    seconds === undefined
      ? undefined
      : new Date(now.getTime() + seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  return problem(
    'login_paused',
    until === undefined
      ? 'The plugin has paused logins for this user from Inkpress after repeated failed logins; it did not say until when.'
      : `The plugin has paused logins for this user from Inkpress after repeated failed logins, until ${until}.`,
    `Wait${until === undefined ? ' 15 minutes' : ` until ${until}`} (or clear the failed logins with the button under ${SETTINGS_PAGE} on the site), then check the credentials again.`,
  );
}

function outdated(version: string | null): Problem {
  return problem(
    'plugin_outdated',
    version === null
      ? `The Inkpress Connector plugin on the site is older than ${PLUGIN_VERSION_NEEDED} (it has no probe route); version ${PLUGIN_VERSION_NEEDED} or later is needed.`
      : `The Inkpress Connector plugin on the site is version ${version}; version ${PLUGIN_VERSION_NEEDED} or later is needed.`,
    `Update the Inkpress Connector plugin to version ${PLUGIN_VERSION_NEEDED} or later under Plugins on the site.`,
  );
}

/** A probe whose plugin_version is no version (or repeats the credentials): nothing of it is shown. */
function notAVersion(): Problem {
  return problem(
    'plugin_outdated',
    `The Inkpress Connector plugin on the site reports a version that is not a version number (not shown), so Inkpress cannot tell that it is ${PLUGIN_VERSION_NEEDED} or later.`,
    `Install the Inkpress Connector plugin, version ${PLUGIN_VERSION_NEEDED} or later, under Plugins on the site (replacing the copy there), then check again.`,
  );
}

/** The plugin's version as the doctor shows it: version-shaped and no echo of the credentials, or null. */
function shownVersion(site: SiteAccess, reported: string): string | null {
  const version = versionOf(reported);
  return version === undefined || repeatsCredentials(version, site) ? null : version;
}

/** What the site says that a problem repeats: none of it when it repeats the credentials; bounded. */
function said(site: SiteAccess, text: string): string {
  return repeatsCredentials(text, site)
    ? "(the site's words repeated the site password and are not shown)"
    : clip(text);
}

/** `1 MB`, `512 KB`. */
function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** At most 300 characters of a site's words. */
function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

function headerStripped(fallbackWorks: boolean): Problem {
  return fallbackWorks
    ? problem(
        'auth_header_stripped',
        `The web server or a proxy in front of WordPress removes the Authorization header; the plugin's own header, ${AUTH_FALLBACK_HEADER}, arrives, and Inkpress logs in with it (application passwords on WordPress's own routes do not work there).`,
        'Nothing is needed for Inkpress; to let other tools log in too, make the server pass the Authorization header on to PHP (on Apache, add "CGIPassAuth On" to .htaccess).',
      )
    : problem(
        'auth_header_stripped',
        `The web server or a proxy in front of WordPress removes the Authorization header, and the plugin's own header, ${AUTH_FALLBACK_HEADER}, does not arrive either, so no login can reach WordPress.`,
        `Make the server pass the Authorization or ${AUTH_FALLBACK_HEADER} header on to PHP (on Apache, add "CGIPassAuth On" to .htaccess; on a proxy or CDN, stop removing these headers).`,
      );
}

/** The problem an obstacle in front of the plugin is; what the site said is repeated only through `said`. */
function obstacleProblem(site: SiteAccess, obstacle: SiteObstacle, allowPlainHttp = false): Problem {
  const { url } = site;
  const host = new URL(url).host;
  const detail = 'detail' in obstacle ? said(site, obstacle.detail) : '';
  switch (obstacle.kind) {
    case 'blocked':
      throw registrationError(new CmsError('blocked', detail));
    case 'unresolved':
      return problem(
        'dns_unresolved',
        `The name ${new URL(url).hostname} does not resolve to an address (${detail}).`,
        'Check the spelling of the address, or add the DNS record (A or AAAA) of the site at your DNS provider, then check again.',
      );
    case 'tls':
      return problem(
        'tls_invalid',
        `The HTTPS certificate of ${host} is not valid: ${detail}.`,
        `Install a valid certificate for ${host} (your host can issue a free Let's Encrypt one), then check again.`,
      );
    case 'timeout':
      return problem(
        'timeout',
        `The site did not answer in time (${detail}).`,
        'Make sure the site is up and that no firewall silently drops requests from Inkpress, then check again.',
      );
    case 'unreachable':
      return problem(
        'unreachable',
        `The site could not be reached: ${detail}.`,
        'Make sure the web server is running and accepts connections at this address, then check again.',
      );
    case 'too_large':
      return problem(
        'site_error',
        `The site's answer at ${url}/?rest_route=/${obstacle.route} is larger than ${megabytes(obstacle.limitBytes)}, where the plugin answers a few kilobytes of JSON: something else answers there (a large page, a file or an endless stream).`,
        `Open ${url}/?rest_route=/${obstacle.route} in a browser and find the plugin, theme or server rule that answers it instead of WordPress's REST API; make it let the REST API answer, then check again.`,
      );
    case 'redirected': {
      const noRedirect = `Make the site answer at ${url} without a redirect, or register the address it answers at.`;
      if (repeatsCredentials(obstacle.location, site)) {
        return problem(
          'redirected',
          `${url} redirects (HTTP ${obstacle.status}) to an address that repeats the site password (not shown); Inkpress carries the password across a redirect only from http to https on the same host.`,
          noRedirect,
        );
      }
      const target = new URL(obstacle.location);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        return problem(
          'redirected',
          `${url} redirects (HTTP ${obstacle.status}) to a ${clip(target.protocol)} address, which is no web address: Inkpress calls only http and https addresses.`,
          noRedirect,
        );
      }
      const where = clip(`${target.origin}${target.pathname}`);
      // Never suggest what the URL policy refuses: a private address, or http where https is required.
      const refused =
        obstacle.refused ??
        (target.protocol === 'http:' && !allowPlainHttp
          ? 'it is plain http, and Inkpress sends the site password only over https'
          : undefined);
      if (refused !== undefined) {
        return problem(
          'redirected',
          `${url} redirects (HTTP ${obstacle.status}) to ${where}, an address Inkpress will not call: ${said(site, refused)}.`,
          `Make the site answer at ${url} without a redirect: the address it redirects to cannot be registered.`,
        );
      }
      const instead = registerInstead(url, obstacle.location);
      return problem(
        'redirected',
        `${url} redirects (HTTP ${obstacle.status}) to ${where}; Inkpress carries the password across a redirect only from http to https on the same host.`,
        instead !== undefined && instead !== url
          ? `Register ${instead} instead, the address the site answers at.`
          : noRedirect,
      );
    }
    case 'challenge': {
      const who = obstacle.vendor ?? 'A firewall in front of WordPress';
      return problem(
        'challenge_page',
        `${who} answered with an HTML challenge page (HTTP ${obstacle.status}) instead of the plugin's JSON.`,
        `Allow Inkpress's requests to the path /?rest_route=/inkpress/v1/ in ${obstacle.vendor ? `${obstacle.vendor}'s` : 'the firewall'} settings (a rule that skips the challenge for it), then check again.`,
      );
    }
    case 'rest_blocked':
      return problem(
        'rest_api_blocked',
        `WordPress's REST API is disabled or blocked on this site: ${detail}.`,
        REST_BLOCKED_FIX,
      );
    case 'server_error':
      return problem(
        'server_error',
        `The site answered with a server error: ${detail}.`,
        "Look at the site's PHP error log (or ask your host) and fix the error, then check again.",
      );
    case 'not_wordpress':
      return problem(
        'not_wordpress',
        `The address does not answer like a WordPress site: ${detail}.`,
        'Register the address of the WordPress site itself (the one whose /wp-admin/ is its dashboard).',
      );
    case 'plugin_missing':
      return problem(
        'plugin_missing',
        `WordPress answers, but the Inkpress Connector plugin does not (${detail}).`,
        'Install and activate the Inkpress Connector plugin under Plugins on the site, then check again.',
      );
  }
}

/**
 * The address to register when the site redirects: where the redirect points, less our query
 * (and `index.php`); when the redirect dropped our query, its origin with the registered path.
 */
export function registerInstead(url: string, location: string): string | undefined {
  try {
    const target = new URL(location);
    const path = target.searchParams.has('rest_route')
      ? target.pathname.replace(/\/index\.php$/, '')
      : new URL(url).pathname;
    return normalizeSiteUrl(`${target.origin}${path}`).url;
  } catch {
    return undefined;
  }
}

/**
 * Whether a password is shaped like a WordPress application password: 24 letters and digits,
 * as WordPress generates them, in groups of four or not.
 */
export function isApplicationPassword(password: string): boolean {
  const text = password.trim();
  return /^[A-Za-z0-9 ]+$/.test(text) && text.replace(/ /g, '').length === 24;
}

function cmsErrorOf(error: unknown): CmsError | undefined {
  if (error instanceof CmsError) return error;
  if (error instanceof ValidationError && error.cause instanceof CmsError) return error.cause;
  return undefined;
}

function problem(code: ProblemCode, message: string, fix: string): Problem {
  return { code, message, fix };
}
