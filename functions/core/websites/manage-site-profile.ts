/** `GET` and `PUT /v1/websites/{uuid}/profile`: a website's voice, audience, facts, banned phrases and defaults. */
import type { Clock } from '../articles/ports';
import { NotFoundError, ValidationError } from '../errors';
import type { CategoryStore, SiteProfileStore, WebsiteStore } from './ports';
import { findWebsite } from './read-websites';
import {
  type DefaultsDeployment,
  emptyProfile,
  parseProfileFields,
  presentProfile,
  type SiteProfile,
} from './site-profile';

export interface SiteProfileDeps {
  websites: Pick<WebsiteStore, 'get'>;
  profiles: SiteProfileStore;
}

/** The website's profile (an empty one until a PUT); a foreign or unknown website is a 404. */
export async function showSiteProfile(deps: SiteProfileDeps, accountId: string, websiteUuid?: string) {
  const website = await findWebsite(deps.websites, accountId, websiteUuid);
  const profile = await deps.profiles.get(accountId, website.websiteUuid);
  return presentProfile(profile ?? emptyProfile(accountId, website.websiteUuid));
}

export interface PutSiteProfileDeps extends SiteProfileDeps, DefaultsDeployment {
  categories: Pick<CategoryStore, 'get'>;
  clock: Clock;
}

/**
 * Replaces the profile (a field left out is empty). The defaults are checked as a create checks
 * them, with this deployment's source policy and image rule (a default every create would refuse
 * is a 422 here). A default `category_uuid` must be one of the website's categories. Articles created before keep what they copied of the old profile.
 */
export async function putSiteProfile(
  deps: PutSiteProfileDeps,
  accountId: string,
  websiteUuid: string | undefined,
  fields: Record<string, unknown>,
) {
  const website = await findWebsite(deps.websites, accountId, websiteUuid);
  const parsed = parseProfileFields(fields, deps);
  const category = parsed.defaults.category_uuid;
  if (typeof category === 'string') {
    if (!(await deps.categories.get(website.websiteUuid, category.trim().toLowerCase()))) {
      throw ValidationError.forField(
        'defaults.category_uuid',
        'The selected category does not belong to the website.',
      );
    }
  }
  const profile: SiteProfile = {
    accountId,
    websiteUuid: website.websiteUuid,
    ...parsed,
    updatedAt: deps.clock().toISOString(),
  };
  if (!(await deps.profiles.put(profile))) throw new NotFoundError('Website');
  return presentProfile(profile);
}
