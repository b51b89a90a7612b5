/** Show a website, list an account's websites, list a website's categories. */
import { NotFoundError } from '../errors';
import type { Page } from '../pagination';
import type { CategoryStore, WebsiteStore } from './ports';
import { type Category, presentCategory, presentWebsite, type Website } from './website';

export interface ReadWebsitesDeps {
  websites: WebsiteStore;
  categories: CategoryStore;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The account's website; a malformed, unknown or foreign uuid is NotFoundError. */
export async function findWebsite(
  websites: Pick<WebsiteStore, 'get'>,
  accountId: string,
  websiteUuid: string | undefined,
): Promise<Website> {
  if (websiteUuid === undefined || !UUID_PATTERN.test(websiteUuid)) throw new NotFoundError('Website');
  const website = await websites.get(accountId, websiteUuid.toLowerCase());
  if (!website) throw new NotFoundError('Website');
  return website;
}

export async function showWebsite(
  deps: Pick<ReadWebsitesDeps, 'websites'>,
  accountId: string,
  websiteUuid?: string,
) {
  return presentWebsite(await findWebsite(deps.websites, accountId, websiteUuid));
}

/**
 * Newest first. An account has few websites (tens, not millions), so a page is found by
 * counting past the earlier pages in the creation index (keys only, no items returned):
 * O(total) reads, which docs/api-contract.md's page numbers allow here; see the repository.
 */
export async function listWebsites(
  deps: Pick<ReadWebsitesDeps, 'websites'>,
  accountId: string,
  page: number,
  perPage: number,
): Promise<Page<ReturnType<typeof presentWebsite>>> {
  const { items, total } = await deps.websites.list(accountId, page, perPage);
  return { items: items.map(presentWebsite), page, total };
}

/** A website's categories by name (then site id), one page of them. */
export async function listCategories(
  deps: ReadWebsitesDeps,
  accountId: string,
  websiteUuid: string | undefined,
  page: number,
  perPage: number,
): Promise<Page<ReturnType<typeof presentCategory>>> {
  const website = await findWebsite(deps.websites, accountId, websiteUuid);
  const all = (await deps.categories.listAll(website.websiteUuid)).sort(byName);
  const start = (page - 1) * perPage;
  return { items: all.slice(start, start + perPage).map(presentCategory), page, total: all.length };
}

function byName(a: Category, b: Category): number {
  return a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || Number(a.cmsId) - Number(b.cmsId);
}
