import {
  CATEGORY_LIMITS,
  categoryUuidFor,
  syncCategories,
  toCategories,
} from '../../../functions/core/websites/categories';
import type { CategoryStore } from '../../../functions/core/websites/ports';
import type { Category } from '../../../functions/core/websites/website';

class MemoryCategories implements CategoryStore {
  readonly items = new Map<string, Category>();
  writes = 0;
  async get(websiteUuid: string, categoryUuid: string) {
    return this.items.get(`${websiteUuid}/${categoryUuid}`);
  }
  async listAll(websiteUuid: string) {
    return [...this.items.values()].filter((category) => category.websiteUuid === websiteUuid);
  }
  async putAll(categories: Category[]) {
    this.writes += categories.length;
    for (const category of categories)
      this.items.set(`${category.websiteUuid}/${category.categoryUuid}`, category);
  }
  async deleteMany(websiteUuid: string, categoryUuids: string[]) {
    for (const uuid of categoryUuids) this.items.delete(`${websiteUuid}/${uuid}`);
  }
}

const WEBSITE = '0b9d6a8e-7c1f-4e7a-9d2b-3c4d5e6f7a8b';

describe('categoryUuidFor', () => {
  it('is stable for a website and site id, and differs across websites and ids', () => {
    expect(categoryUuidFor(WEBSITE, '7')).toBe(categoryUuidFor(WEBSITE, '7'));
    expect(categoryUuidFor(WEBSITE, '7')).not.toBe(categoryUuidFor(WEBSITE, '8'));
    expect(categoryUuidFor(WEBSITE, '7')).not.toBe(
      categoryUuidFor('1b9d6a8e-7c1f-4e7a-9d2b-3c4d5e6f7a8b', '7'),
    );
    expect(categoryUuidFor(WEBSITE, '7')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

describe('syncCategories', () => {
  it('adds new, rewrites changed, removes gone categories, and leaves unchanged ones alone', async () => {
    const store = new MemoryCategories();
    expect(
      await syncCategories(store, WEBSITE, [
        { cmsId: '1', name: 'News', slug: 'news' },
        { cmsId: '2', name: 'Old', slug: 'old' },
        { cmsId: '3', name: 'Same', slug: 'same' },
      ]),
    ).toBe(3);
    store.writes = 0;
    expect(
      await syncCategories(store, WEBSITE, [
        { cmsId: '1', name: 'World news', slug: 'news' },
        { cmsId: '3', name: 'Same', slug: 'same' },
        { cmsId: '4', name: 'New', slug: 'new', parentCmsId: '1' },
      ]),
    ).toBe(3);
    expect(store.writes).toBe(2);
    const stored = (await store.listAll(WEBSITE)).map((category) => [
      category.cmsId,
      category.name,
      category.parentCmsId,
    ]);
    expect(stored.sort()).toEqual([
      ['1', 'World news', undefined],
      ['3', 'Same', undefined],
      ['4', 'New', '1'],
    ]);
    expect(await store.get(WEBSITE, categoryUuidFor(WEBSITE, '4'))).toMatchObject({ slug: 'new' });
  });
});

describe('toCategories: what is kept of a site list', () => {
  it('keeps one category per site id (the first one given)', () => {
    const kept = toCategories(WEBSITE, [
      { cmsId: '3', name: 'Three', slug: 'three' },
      { cmsId: '1', name: 'One', slug: 'one' },
      { cmsId: '3', name: 'Three again', slug: 'three-again' },
      { cmsId: '1', name: 'One again', slug: 'one-again' },
    ]);
    expect(kept.map((category) => [category.cmsId, category.name])).toEqual([
      ['1', 'One'],
      ['3', 'Three'],
    ]);
  });

  it(`keeps at most ${CATEGORY_LIMITS.maxCategories}, the oldest (lowest site ids) first`, () => {
    const many = Array.from({ length: CATEGORY_LIMITS.maxCategories + 500 }, (_, index) => ({
      cmsId: String(CATEGORY_LIMITS.maxCategories + 500 - index),
      name: `Topic ${index}`,
      slug: `topic-${index}`,
    }));
    const kept = toCategories(WEBSITE, many);
    expect(kept).toHaveLength(CATEGORY_LIMITS.maxCategories);
    expect(kept[0]?.cmsId).toBe('1');
    expect(kept.at(-1)?.cmsId).toBe(String(CATEGORY_LIMITS.maxCategories));
  });

  it('shortens names and slugs to their limits without splitting a character', () => {
    const [category] = toCategories(WEBSITE, [
      { cmsId: '5', name: `${'n'.repeat(CATEGORY_LIMITS.maxNameLength - 1)}😀😀`, slug: 's'.repeat(500) },
    ]);
    expect(Array.from(category?.name ?? '')).toHaveLength(CATEGORY_LIMITS.maxNameLength);
    expect(category?.name.endsWith('n😀')).toBe(true);
    expect(category?.slug).toBe('s'.repeat(CATEGORY_LIMITS.maxSlugLength));
  });

  it('syncCategories stores and counts a list with duplicate ids once per id', async () => {
    const store = new MemoryCategories();
    expect(
      await syncCategories(store, WEBSITE, [
        { cmsId: '1', name: 'News', slug: 'news' },
        { cmsId: '1', name: 'News', slug: 'news' },
        { cmsId: '2', name: 'Sport', slug: 'sport' },
      ]),
    ).toBe(2);
    expect(store.writes).toBe(2);
  });
});
