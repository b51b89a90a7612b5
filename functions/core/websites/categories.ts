/** Categories of a website: stable identifiers, and keeping the stored copy in step with the site. */
import { v5 as uuidv5 } from 'uuid';
import type { CmsCategory } from './cms-client';
import type { CategoryStore } from './ports';
import type { Category } from './website';

/** Namespace of category uuids (uuid v5 of `<websiteUuid>/<cms id>`). */
const CATEGORY_NAMESPACE = '6f1d3c52-8f3b-4c1e-9a57-2b0f4f7e9c11';

/** The same website and site term id always give the same category uuid. */
export function categoryUuidFor(websiteUuid: string, cmsId: string): string {
  return uuidv5(`${websiteUuid}/${cmsId}`, CATEGORY_NAMESPACE);
}

export function toCategories(websiteUuid: string, fromSite: CmsCategory[]): Category[] {
  return fromSite.map((category) => ({
    websiteUuid,
    categoryUuid: categoryUuidFor(websiteUuid, category.cmsId),
    cmsId: category.cmsId,
    name: category.name,
    slug: category.slug,
    ...(category.parentCmsId ? { parentCmsId: category.parentCmsId } : {}),
  }));
}

/**
 * Makes the stored categories of a website those the site has now: new and renamed ones are
 * written, ones gone from the site are removed. Returns how many the website has.
 */
export async function syncCategories(
  store: CategoryStore,
  websiteUuid: string,
  fromSite: CmsCategory[],
): Promise<number> {
  const wanted = toCategories(websiteUuid, fromSite);
  const stored = await store.listAll(websiteUuid);
  const storedById = new Map(stored.map((category) => [category.categoryUuid, category]));
  const changed = wanted.filter((category) => !sameCategory(storedById.get(category.categoryUuid), category));
  const wantedIds = new Set(wanted.map((category) => category.categoryUuid));
  const gone = stored.filter((category) => !wantedIds.has(category.categoryUuid));
  await store.putAll(changed);
  await store.deleteMany(
    websiteUuid,
    gone.map((category) => category.categoryUuid),
  );
  return wanted.length;
}

function sameCategory(a: Category | undefined, b: Category): boolean {
  return (
    a !== undefined &&
    a.name === b.name &&
    a.slug === b.slug &&
    a.cmsId === b.cmsId &&
    (a.parentCmsId ?? '') === (b.parentCmsId ?? '')
  );
}
