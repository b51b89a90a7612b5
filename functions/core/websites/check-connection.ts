/**
 * `POST /v1/websites/check`: the connection doctor on a site and credentials a client is about
 * to register (diagnose-connection.ts). Validated like a create; the login counts toward the
 * account's cap of failed logins as a create's does (`verifyLogin`); nothing is stored and
 * nothing is charged.
 */
import { parseOrThrow } from '../schema-helpers';
import type { SiteAccess } from './cms-client';
import { createWebsiteSchema, verifyLogin, type WebsiteDeps } from './create-website';
import { type DoctorDeps, diagnoseConnection, type Problem } from './diagnose-connection';
import { registrableSiteUrl } from './site-url';

export interface CheckConnectionDeps
  extends DoctorDeps,
    Pick<WebsiteDeps, 'cms' | 'loginFailures' | 'allowPlainHttp'> {}

export interface ConnectionReport {
  data: {
    /** The address as Inkpress would register it. */
    url: string;
    /** 1 when Inkpress logged in and read the categories: a create with these credentials would work. */
    connected: 0 | 1;
    /** The plugin's version, when the site told it. */
    plugin_version: string | null;
    problems: Problem[];
  };
}

export async function checkConnection(
  deps: CheckConnectionDeps,
  accountId: string,
  fields: Record<string, unknown>,
): Promise<ConnectionReport> {
  const input = parseOrThrow(createWebsiteSchema, fields);
  const url = registrableSiteUrl(input.url, deps.allowPlainHttp === true);
  const site: SiteAccess = { url, login: input.login, password: input.password };
  const diagnosis = await diagnoseConnection(deps, site, (budget) =>
    verifyLogin(deps, accountId, site, { budget }),
  );
  return {
    data: {
      url,
      connected: diagnosis.connected ? 1 : 0,
      plugin_version: diagnosis.pluginVersion,
      problems: diagnosis.problems,
    },
  };
}
