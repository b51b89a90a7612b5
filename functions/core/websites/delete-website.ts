/**
 * `PUT /v1/websites/<uuid>/delete`: the website, its URL guard, its categories and its site index
 * go; its articles stay.
 */

import { NotFoundError } from '../errors';
import type { SiteIndexStore } from './ports';
import type { ReadWebsitesDeps } from './read-websites';
import { findWebsite } from './read-websites';
import { removeAllCategories } from './remove-categories';

export interface DeleteWebsiteDeps extends ReadWebsitesDeps {
  siteIndex: Pick<SiteIndexStore, 'removeAll'>;
}

export async function deleteWebsite(deps: DeleteWebsiteDeps, accountId: string, websiteUuid?: string) {
  const website = await findWebsite(deps.websites, accountId, websiteUuid);
  const removed = await deps.websites.delete(accountId, website.websiteUuid);
  await removeAllCategories(deps.categories, website.websiteUuid);
  await deps.siteIndex.removeAll(website.websiteUuid);
  // Another request deleted it meanwhile: that one answers 200, this one 404 (as after it).
  if (!removed) throw new NotFoundError('Website');
  return { message: `The website ${removed.url} was deleted. Its articles are kept.` };
}
