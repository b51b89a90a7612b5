/**
 * Page N of the article list costs one Query of at most 20 items plus one small read, whatever
 * N and however many articles the account has; the envelope's links and meta are exact.
 */

import { handler as listArticlesHandler } from '../../functions/api/list-articles';
import { createAccount } from '../../functions/core/accounts';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import type { ProvisionedResources } from '../../local/provision';
import { fixtureUuid, seedGeneratedArticles } from '../support/article-fixtures';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { withReadLog } from '../support/read-log';
import { provisionTestResources } from '../support/test-resources';

const TOTAL = 1050;
let resources: ProvisionedResources;
let accountId: string;

beforeAll(async () => {
  resources = await provisionTestResources();
  ({
    account: { accountId },
  } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Big', credits: 0 },
  ));
  await seedGeneratedArticles(dynamoDocumentClient(), resources.tableNames, accountId, TOTAL);
}, 120_000);

async function page(n: number) {
  const response = await listArticlesHandler(
    apiEvent('list-articles', { accountId, query: { page: String(n) } }),
  );
  expect(response.statusCode).toBe(200);
  return JSON.parse(response.body);
}

describe('article list pagination with websites and categories', () => {
  it('reads each page with the same calls, nesting websites and categories by batch reads', async () => {
    const {
      account: { accountId: linkedAccount },
    } = await createAccount(
      { accounts: deps.accountStore(), tokens: deps.tokenStore() },
      { name: 'Linked', credits: 0 },
    );
    const sites = [0, 1].map((n) => ({
      accountId: linkedAccount,
      websiteUuid: `10000000-0000-4000-8000-00000000000${n}`,
      url: `https://site-${n}.example.com`,
      login: 'inkpress',
      passwordCiphertext: 'not-used-here',
      loginIsUnauthorized: false,
      isUnreachable: false,
      totalCreditsUsed: 0,
      articlesCount: 0,
      categoriesCount: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
    }));
    for (const site of sites) await deps.websiteStore().create(site, site.url.replace('https://', ''));
    const categories = sites.map((site, n) => ({
      websiteUuid: site.websiteUuid,
      categoryUuid: `20000000-0000-4000-8000-00000000000${n}`,
      cmsId: String(n + 2),
      name: `Category ${n}`,
      slug: `category-${n}`,
    }));
    await deps.categoryStore().putAll(categories);
    const linkOf = (seq: number) => {
      const n = seq % 2;
      return { websiteUuid: sites[n]?.websiteUuid ?? '', categoryUuid: categories[n]?.categoryUuid ?? '' };
    };
    await seedGeneratedArticles(dynamoDocumentClient(), resources.tableNames, linkedAccount, 1050, linkOf);

    const readPage = async (n: number) =>
      withReadLog(dynamoDocumentClient(), async () => {
        const response = await listArticlesHandler(
          apiEvent('list-articles', { accountId: linkedAccount, query: { page: String(n) } }),
        );
        return JSON.parse(response.body);
      });
    const first = await readPage(1);
    const fiftieth = await readPage(50);
    expect(first.log.commands.sort()).toEqual([
      'BatchGetItemCommand',
      'BatchGetItemCommand',
      'GetItemCommand',
      'QueryCommand',
      'UpdateItemCommand', // the account's rate-limit token
    ]);
    expect(fiftieth.log.commands.sort()).toEqual(first.log.commands);
    const item = fiftieth.result.data[0].data;
    const n = (1050 - 49 * 20) % 2;
    expect(item.website).toMatchObject({ uuid: sites[n]?.websiteUuid, url: sites[n]?.url });
    expect(item.category).toEqual({
      uuid: categories[n]?.categoryUuid,
      name: `Category ${n}`,
      slug: `category-${n}`,
      cms_id: String(n + 2),
    });
  });
});

describe('article list pagination over 1,050 generated articles', () => {
  it('reads the same for page 1 and page 50: one small read and one Query of 20 items', async () => {
    const first = await withReadLog(dynamoDocumentClient(), () => page(1));
    const fiftieth = await withReadLog(dynamoDocumentClient(), () => page(50));
    // Plus the account's rate-limit token: one UpdateItem per request.
    expect(first.log.commands).toEqual(['UpdateItemCommand', 'GetItemCommand', 'QueryCommand']);
    expect(fiftieth.log).toEqual(first.log);
    expect(first.log.itemsRead).toBe(21);
  });

  it('returns newest first, with exact links and meta', async () => {
    const base = 'https://api.example.com/prod/v1/articles/list';
    const first = await page(1);
    expect(first.data.map((item: { data: { title: string } }) => item.data.title).slice(0, 2)).toEqual([
      'Article 1050',
      'Article 1049',
    ]);
    expect(first.links).toEqual({
      first: `${base}?page=1`,
      last: `${base}?page=53`,
      prev: null,
      next: `${base}?page=2`,
    });
    expect(first.meta).toEqual({
      current_page: 1,
      from: 1,
      path: base,
      per_page: 20,
      to: 20,
      last_page: 53,
      total: 1050,
    });

    const fiftieth = await page(50);
    expect(fiftieth.data).toHaveLength(20);
    expect(fiftieth.data[0].data.uuid).toBe(fixtureUuid(1050 - 49 * 20));
    expect(fiftieth.meta).toMatchObject({ current_page: 50, from: 981, to: 1000 });
    expect(fiftieth.links).toMatchObject({ prev: `${base}?page=49`, next: `${base}?page=51` });

    const last = await page(53);
    expect(last.data).toHaveLength(10);
    expect(last.data[9].data.uuid).toBe(fixtureUuid(1));
    expect(last.links.next).toBeNull();
    expect(last.meta).toMatchObject({ from: 1041, to: 1050 });

    const beyond = await page(54);
    expect(beyond.data).toEqual([]);
    expect(beyond.meta).toMatchObject({ current_page: 54, from: null, to: null });
  });
});
