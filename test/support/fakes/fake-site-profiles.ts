/** Website profiles in memory: stored only while the website exists, read per account. */
import type { SiteProfileStore } from '../../../functions/core/websites/ports';
import type { SiteProfile } from '../../../functions/core/websites/site-profile';
import { copy, type InMemoryTables, key } from './tables';

export class FakeSiteProfileStore implements SiteProfileStore {
  private readonly profiles = new Map<string, SiteProfile>();

  constructor(private readonly tables: InMemoryTables) {}

  async get(accountId: string, websiteUuid: string): Promise<SiteProfile | undefined> {
    const profile = this.profiles.get(key(accountId, websiteUuid));
    return profile ? copy(profile) : undefined;
  }

  async put(profile: SiteProfile): Promise<boolean> {
    if (!this.tables.websites.has(key(profile.accountId, profile.websiteUuid))) return false;
    this.profiles.set(key(profile.accountId, profile.websiteUuid), copy(profile));
    return true;
  }
}
