/** Categories of a website: stable identifiers, and keeping the stored copy in step with the site. */
import { v5 as uuidv5 } from 'uuid';
import { plainText, safeText } from '../text';
import type { CmsCategory } from './cms-client';
import type { CategoryStore } from './ports';
import type { Category } from './website';

/** Namespace of category uuids (uuid v5 of `<websiteUuid>/<cms id>`). */
const CATEGORY_NAMESPACE = '6f1d3c52-8f3b-4c1e-9a57-2b0f4f7e9c11';

/** The same website and site term id always give the same category uuid. */
export function categoryUuidFor(websiteUuid: string, cmsId: string): string {
  return uuidv5(`${websiteUuid}/${cmsId}`, CATEGORY_NAMESPACE);
}

/**
 * What is kept of a site's category list: registration and every refresh write at most
 * `maxCategories` (the lowest site ids, i.e. the oldest, so the kept set stays stable as a site
 * grows), and names and slugs are cut to WordPress's own column sizes.
 */
export const CATEGORY_LIMITS = { maxCategories: 2_000, maxNameLength: 200, maxSlugLength: 200 } as const;

/**
 * The stored form of a site's categories: one per site id (the first given wins), ordered by
 * (numeric) site id, capped and shortened to CATEGORY_LIMITS; names and slugs as plain text.
 */
export function toCategories(websiteUuid: string, fromSite: CmsCategory[]): Category[] {
  const byId = new Map<string, CmsCategory>();
  for (const category of fromSite) if (!byId.has(category.cmsId)) byId.set(category.cmsId, category);
  return [...byId.values()]
    .sort((a, b) => Number(a.cmsId) - Number(b.cmsId))
    .slice(0, CATEGORY_LIMITS.maxCategories)
    .map((category) => ({
      websiteUuid,
      categoryUuid: categoryUuidFor(websiteUuid, category.cmsId),
      cmsId: category.cmsId,
      // WordPress keeps term names as HTML (`Tom &amp; Jerry`): decoded once, kept as text.
      name: shorten(plainText(category.name), CATEGORY_LIMITS.maxNameLength),
      slug: shorten(safeText(category.slug), CATEGORY_LIMITS.maxSlugLength),
      ...(category.parentCmsId ? { parentCmsId: category.parentCmsId } : {}),
    }));
}

/** At most `max` characters (code points, so no character is split). */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  return Array.from(text).slice(0, max).join('');
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
