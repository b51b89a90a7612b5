/**
 * The plugin's index answer (`GET inkpress/v1/index`) is untrusted: every field of an entry is
 * bounded where the answer is read, and an entry that cannot be made sane is left out, never
 * the page (docs/decisions.md, "Site index").
 */
import { siteIndexPageOf } from '../../../functions/adapters/wordpress/site-index-page';
import type { IndexedPost, SiteIndexEntry } from '../../../functions/core/websites/site-index';

const SITE = 'https://blog.example.com';
/** The bounds of docs/decisions.md, written out so that a test fails on behaviour, not on an import. */
const TITLE_MAX = 300;
const CATEGORIES_MAX = 20;
const URL_MAX = 2_048;

function post(id: number, fields: Record<string, unknown> = {}) {
  return {
    id,
    status: 'publish',
    title: `Post ${id}`,
    link: `${SITE}/post-${id}/`,
    excerpt: `About post ${id}.`,
    focus_keyword: `keyword ${id}`,
    categories: ['Recipes'],
    modified_gmt: '2026-01-02T10:00:00Z',
    noindex: false,
    ...fields,
  };
}

const published = (entries: SiteIndexEntry[]) =>
  entries.filter((entry): entry is { status: 'publish' } & IndexedPost => entry.status === 'publish');

/** Bytes of the entry as DynamoDB would store it (well below its 400 KB item). */
const bytes = (entry: SiteIndexEntry) => Buffer.byteLength(JSON.stringify(entry), 'utf8');

it('a huge focus keyword or category list leaves the other posts of the page whole', () => {
  const page = siteIndexPageOf(
    {
      posts: [
        post(1),
        post(2, { focus_keyword: 'compost '.repeat(60_000) }),
        post(3, { categories: Array.from({ length: 60_000 }, (_, i) => `Category ${i}`) }),
        post(4, { categories: ['Garden', 'x'.repeat(500_000), 'Garden', 'Soil'] }),
        post(5),
      ],
      total_pages: 1,
    },
    SITE,
  );
  const posts = published(page.entries);
  expect(posts.map((entry) => entry.postId)).toEqual(['1', '2', '3', '4', '5']);
  // A cut keyword would be another keyword: too long, the post keeps none.
  expect(posts[1]?.focusKeyword).toBe('');
  expect(posts[2]?.categories).toHaveLength(CATEGORIES_MAX);
  expect(posts[2]?.categories[0]).toBe('Category 0');
  expect(posts[3]?.categories).toEqual(['Garden', 'Soil']);
  expect(posts[0]).toMatchObject({ title: 'Post 1', focusKeyword: 'keyword 1', categories: ['Recipes'] });
  for (const entry of page.entries) expect(bytes(entry)).toBeLessThan(30_000);
});

it('a huge permalink, date or status leaves that entry out', () => {
  const page = siteIndexPageOf(
    {
      posts: [
        post(1, { link: `${SITE}/${'a'.repeat(URL_MAX)}/` }),
        post(2, { modified_gmt: `2026-01-02T10:00:00Z${' '.repeat(500_000)}` }),
        post(3, { status: 'x'.repeat(500_000) }),
        post(4, { link: `${SITE}/${'a'.repeat(200)}/` }),
      ],
      total_pages: 1,
    },
    SITE,
  );
  expect(page.entries).toEqual([
    { status: 'unusable', postId: '1' },
    { status: 'unusable', postId: '2' },
    { status: 'unknown', postId: '3' },
    expect.objectContaining({ status: 'publish', postId: '4' }),
  ]);
});

it('a huge title is cut to TITLE_MAX characters at a character boundary', () => {
  const page = siteIndexPageOf(
    {
      posts: [
        post(1, { title: 'Compost '.repeat(40_000) }),
        // Emoji (two UTF-16 units) and a letter with a combining accent: never cut in half.
        post(2, { title: `${'🌱'.repeat(TITLE_MAX - 1)}e\u0301 and more` }),
        post(3, { title: 'é'.repeat(TITLE_MAX) }),
      ],
      total_pages: 1,
    },
    SITE,
  );
  const [first, second, third] = published(page.entries);
  expect([...(first?.title ?? '')].length).toBeLessThanOrEqual(TITLE_MAX);
  expect(first?.title).toMatch(/^Compost Compost/);
  expect(first?.title).toBe(first?.title.trim());
  expect(second?.title).toBe('🌱'.repeat(TITLE_MAX - 1));
  expect(second?.title.isWellFormed()).toBe(true);
  expect(third?.title).toBe('é'.repeat(TITLE_MAX));
  for (const entry of page.entries) expect(bytes(entry)).toBeLessThan(5_000);
});
