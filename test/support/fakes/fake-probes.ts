/** The connection doctor's probes of a site, scripted: what the plugin's probe route and WordPress core answer. */
import type { SiteAccess } from '../../../functions/core/websites/cms-client';
import type { ConnectionProbes, CoreUserProbe, PluginProbe } from '../../../functions/core/websites/ports';

export class FakeConnectionProbes implements ConnectionProbes {
  /** The probe route's answer: by default plugin 1.5.0, both login headers arriving. */
  plugin: PluginProbe = { kind: 'plugin', version: '1.5.0', headers: { authorization: true, custom: true } };
  /** WordPress core's answer about an application password's user: by default a refusal. */
  user: CoreUserProbe = { kind: 'refused' };
  readonly calls: { kind: 'probePlugin' | 'coreUser'; url: string; password?: string; timeoutMs: number }[] =
    [];
  /** Runs in each call before it answers (a test advances its clock: the time the call took). */
  spend: ((timeoutMs: number) => void) | undefined;

  async probePlugin(url: string, timeoutMs: number): Promise<PluginProbe> {
    this.calls.push({ kind: 'probePlugin', url, timeoutMs });
    this.spend?.(timeoutMs);
    return this.plugin;
  }

  async coreUser(site: SiteAccess, timeoutMs: number): Promise<CoreUserProbe> {
    this.calls.push({ kind: 'coreUser', url: site.url, password: site.password, timeoutMs });
    this.spend?.(timeoutMs);
    return this.user;
  }
}
