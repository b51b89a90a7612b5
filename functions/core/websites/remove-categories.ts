import type { CategoryStore } from './ports';

/**
 * Removes every stored category of a website. A module of its own, apart from categories.ts: the
 * website deletion needs no HTML parser (categories.ts's plainText), and its bundle stays without one.
 */
export async function removeAllCategories(store: CategoryStore, websiteUuid: string): Promise<void> {
  const stored = await store.listAll(websiteUuid);
  await store.deleteMany(
    websiteUuid,
    stored.map((category) => category.categoryUuid),
  );
}
