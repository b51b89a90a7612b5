/** `PUT /v1/websites/<uuid>/delete`: the website, its URL guard and its categories go; its articles stay. */

import type { ReadWebsitesDeps } from './read-websites';
import { findWebsite } from './read-websites';
import { removeAllCategories } from './remove-categories';

export async function deleteWebsite(deps: ReadWebsitesDeps, accountId: string, websiteUuid?: string) {
  const website = await findWebsite(deps.websites, accountId, websiteUuid);
  const removed = (await deps.websites.delete(accountId, website.websiteUuid)) ?? website;
  await removeAllCategories(deps.categories, website.websiteUuid);
  return { message: `The website ${removed.url} was deleted. Its articles are kept.` };
}
