/**
 * The site index against DynamoDB Local, moto KMS and the fake plugin server: registration
 * builds it from the plugin's index route (plugin 1.5), website show reports it, the refresh
 * route adds what changed and drops what left `publish`, a hostile site's entries that are not
 * links on its own host stay out, and a plugin before 1.5 is registered without an index.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as refreshHandler } from '../../functions/api/refresh-site-index';
import { handler as showWebsiteHandler } from '../../functions/api/show-website';
import { createAccount } from '../../functions/core/accounts';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeIndexPost, type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { urlencodedBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

const PASSWORD = 'correct horse battery';
let site: FakeWordPress;
let accountId: string;

beforeAll(async () => {
  site = await startFakeWordPress();
  await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Site index test', credits: 10 },
  );
  accountId = account.accountId;
});

afterAll(async () => {
  await site.close();
});

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);

function post(id: number, fields: Partial<FakeIndexPost> = {}): FakeIndexPost {
  return {
    id,
    status: 'publish',
    title: `Post ${id}`,
    link: `${site.url}/post-${id}/`,
    excerpt: `About post ${id}.`,
    focus_keyword: `keyword ${id}`,
    categories: ['Recipes'],
    modified_gmt: `2026-01-0${id}T10:00:00Z`,
    noindex: false,
    ...fields,
  };
}

async function register(path: string) {
  const response = await createWebsiteHandler(
    apiEvent('create-website', {
      accountId,
      ...urlencodedBody({ url: `${site.url}${path}`, login: 'inkpress', password: PASSWORD }),
    }),
  );
  expect(response.statusCode).toBe(201);
  return body(response);
}

const show = async (websiteUuid: string) =>
  body(
    await showWebsiteHandler(
      apiEvent('show-website', { accountId, pathParameters: { website_uuid: websiteUuid } }),
    ),
  );

it('registration builds the index, show reports it, and a refresh follows the site', async () => {
  site.index = [
    post(1),
    post(2, { noindex: true }),
    post(3, { status: 'draft' }),
    post(4, { link: 'javascript:alert(1)' }),
    post(5, { link: 'https://elsewhere.example.org/post-5/' }),
    post(6, { title: '<script>x</script>' }),
  ];
  const created = await register('/indexed');
  expect(created.data).toMatchObject({ posts_indexed: 3, index_supported: 1 });
  expect(created.data.indexed_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  const websiteUuid = created.data.uuid;

  const stored = await deps.siteIndexStore().list(websiteUuid);
  expect(stored.map((entry) => entry.postId).sort()).toEqual(['1', '2', '6']);
  // A title is text: markup in it never comes back as markup.
  expect(stored.find((entry) => entry.postId === '6')?.title).not.toContain('<');
  expect(stored.find((entry) => entry.postId === '2')).toMatchObject({
    url: `${site.url}/post-2/`,
    title: 'Post 2',
    focusKeyword: 'keyword 2',
    categories: ['Recipes'],
    noindex: true,
    modifiedAt: '2026-01-02T10:00:00.000Z',
  });
  expect((await show(websiteUuid)).data).toMatchObject({ posts_indexed: 3 });

  // On the site: post 1 goes to draft, post 7 is published (post 6 deleted for good is only
  // noticed by the weekly full build).
  site.index = [
    post(1, { status: 'draft', modified_gmt: '2026-01-08T10:00:00Z' }),
    post(2, { noindex: true }),
    post(7),
  ];
  site.requests.length = 0;
  const refreshed = await refreshHandler(
    apiEvent('refresh-site-index', { accountId, pathParameters: { website_uuid: websiteUuid } }),
  );
  expect(refreshed.statusCode).toBe(200);
  expect(body(refreshed).data).toMatchObject({ posts_indexed: 3, index_complete: 1 });
  // The plugin's index route was asked.
  expect(site.requests.some((request) => request.route === '/inkpress/v1/index')).toBe(true);
  expect((await deps.siteIndexStore().list(websiteUuid)).map((entry) => entry.postId).sort()).toEqual([
    '2',
    '6',
    '7',
  ]);
});

it('one post with a huge focus keyword or category list leaves the good posts of its page indexed', async () => {
  // ~480 KB of keyword, ~900 KB of categories: stored whole, either item is past DynamoDB's 400 KB.
  site.index = [
    post(1),
    post(2, { focus_keyword: 'compost '.repeat(60_000) }),
    post(3),
    post(4, { title: 'Compost '.repeat(40_000) }),
  ];
  const created = await register('/oversized');
  expect(created.data).toMatchObject({ posts_indexed: 4, index_supported: 1 });
  const websiteUuid = created.data.uuid;
  const stored = await deps.siteIndexStore().list(websiteUuid);
  expect(stored.map((entry) => entry.postId).sort()).toEqual(['1', '2', '3', '4']);
  expect(stored.find((entry) => entry.postId === '2')?.focusKeyword).toBe('');
  expect([...(stored.find((entry) => entry.postId === '4')?.title ?? '')].length).toBeLessThanOrEqual(300);

  site.index = [
    post(5, { categories: Array.from({ length: 60_000 }, (_, i) => `Category ${i}`) }),
    post(6, { modified_gmt: '2026-01-09T10:00:00Z' }),
  ];
  const refreshed = await refreshHandler(
    apiEvent('refresh-site-index', { accountId, pathParameters: { website_uuid: websiteUuid } }),
  );
  expect(refreshed.statusCode).toBe(200);
  expect(body(refreshed).data).toMatchObject({ posts_indexed: 6 });
  const after = await deps.siteIndexStore().list(websiteUuid);
  expect(after.map((entry) => entry.postId).sort()).toEqual(['1', '2', '3', '4', '5', '6']);
  expect(after.find((entry) => entry.postId === '5')?.categories).toHaveLength(20);
});

it('a site whose plugin is older than 1.5 is registered without an index', async () => {
  site.index = undefined;
  const created = await register('/legacy');
  expect(created.data).toMatchObject({
    posts_indexed: 0,
    indexed_at: expect.any(String),
    index_supported: 0,
  });
  const refreshed = await refreshHandler(
    apiEvent('refresh-site-index', { accountId, pathParameters: { website_uuid: created.data.uuid } }),
  );
  expect(refreshed.statusCode).toBe(200);
  expect(body(refreshed).data).toMatchObject({ posts_indexed: 0, index_supported: 0 });
});

it('the store adds a post once, removes posts, and removes a whole index', async () => {
  const store = deps.siteIndexStore();
  const websiteUuid = crypto.randomUUID();
  const entry = {
    postId: '42',
    url: 'https://example.com/p/',
    title: 'T',
    excerpt: '',
    focusKeyword: 'k',
    categories: [],
    modifiedAt: '2026-01-01T00:00:00.000Z',
    noindex: false,
  };
  expect(await store.add(websiteUuid, entry, '2026-01-01T00:00:00.000Z')).toBe(true);
  expect(await store.add(websiteUuid, entry, '2026-01-01T00:00:00.000Z')).toBe(false);
  await store.putState({ websiteUuid, supported: true, postsIndexed: 1 });
  await store.upsert(
    websiteUuid,
    [
      { ...entry, postId: '43' },
      { ...entry, postId: '43' },
    ],
    '2026-01-02T00:00:00.000Z',
  );
  expect((await store.list(websiteUuid)).map((p) => p.postId).sort()).toEqual(['42', '43']);
  await store.remove(websiteUuid, ['42', '99']);
  expect((await store.list(websiteUuid)).map((p) => p.postId)).toEqual(['43']);
  expect((await store.getState(websiteUuid))?.postsIndexed).toBe(1);
  await store.removeAll(websiteUuid);
  expect(await store.list(websiteUuid)).toEqual([]);
  expect(await store.getState(websiteUuid)).toBeUndefined();
});
