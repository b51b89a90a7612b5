/**
 * The websites API through its handlers, against DynamoDB Local, moto KMS and a fake
 * WordPress plugin server on 127.0.0.1: exact wire format, every 422 reason, duplicates,
 * pagination, another account's website, what a delete removes and what it keeps.
 */
import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { KmsPasswordCipher } from '../../functions/adapters/kms/site-password-cipher';
import { systemResolver } from '../../functions/adapters/wordpress/ssrf-guard';
import { DEFAULT_SITE_LIMITS, WordPressClient } from '../../functions/adapters/wordpress/wordpress-client';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as deleteWebsiteHandler } from '../../functions/api/delete-website';
import { handler as listCategoriesHandler } from '../../functions/api/list-categories';
import { handler as listWebsitesHandler } from '../../functions/api/list-websites';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { handler as showWebsiteHandler } from '../../functions/api/show-website';
import { createAccount } from '../../functions/core/accounts';
import { ValidationError } from '../../functions/core/errors';
import { categoryUuidFor } from '../../functions/core/websites/categories';
import { createWebsite } from '../../functions/core/websites/create-website';
import { LOGIN_FAILED_MESSAGE } from '../../functions/core/websites/site-failures';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import type { ProvisionedResources } from '../../local/provision';
import { coldStartHandler } from '../support/cold-start';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { multipartBody, urlencodedBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

const PASSWORD = 'correct horse battery';
const WIRE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let resources: ProvisionedResources;
let site: FakeWordPress;

beforeAll(async () => {
  site = await startFakeWordPress();
  resources = await provisionTestResources({ PUBLIC_BASE_URL: '' });
});

afterAll(async () => {
  await site.close();
});

beforeEach(() => {
  site.mode = 'ok';
  site.redirectLocation = undefined;
  site.requests = [];
  site.failedLogins.clear();
});

async function newAccount(credits = 100): Promise<string> {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Websites test', credits },
  );
  return account.accountId;
}

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);

function register(
  accountId: string,
  fields: Record<string, string>,
  encoding: 'multipart' | 'urlencoded' | 'json' = 'multipart',
  handler = createWebsiteHandler,
) {
  const encoded =
    encoding === 'multipart'
      ? multipartBody(fields)
      : encoding === 'urlencoded'
        ? urlencodedBody(fields)
        : { body: JSON.stringify(fields), contentType: 'application/json' };
  return handler(apiEvent('create-website', { accountId, ...encoded }));
}

const validFields = (path = '') => ({ url: `${site.url}${path}`, login: 'inkpress', password: PASSWORD });
const show = (accountId: string, uuid: string) =>
  showWebsiteHandler(apiEvent('show-website', { accountId, pathParameters: { website_uuid: uuid } }));
const list = (accountId: string, query: Record<string, string> = {}) =>
  listWebsitesHandler(apiEvent('list-websites', { accountId, query }));
const remove = (accountId: string, uuid: string) =>
  deleteWebsiteHandler(apiEvent('delete-website', { accountId, pathParameters: { website_uuid: uuid } }));
const categories = (accountId: string, uuid: string, query: Record<string, string> = {}) =>
  listCategoriesHandler(
    apiEvent('list-categories', { accountId, pathParameters: { website_uuid: uuid }, query }),
  );

async function registered(accountId: string, path = ''): Promise<string> {
  const response = await register(accountId, validFields(path));
  expect(response.statusCode).toBe(201);
  return body(response).data.uuid;
}

async function websiteItems(accountId: string) {
  const { Items } = await dynamoDocumentClient().send(
    new QueryCommand({
      TableName: resources.tableNames.websites,
      KeyConditionExpression: 'accountId = :accountId',
      ExpressionAttributeValues: { ':accountId': accountId },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

async function categoryItems(websiteUuid: string) {
  const { Items } = await dynamoDocumentClient().send(
    new QueryCommand({
      TableName: resources.tableNames.categories,
      KeyConditionExpression: 'websiteUuid = :websiteUuid',
      ExpressionAttributeValues: { ':websiteUuid': websiteUuid },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

describe('POST /v1/websites/create', () => {
  it('verifies the site, stores it and answers 201 with the website record', async () => {
    const accountId = await newAccount();
    site.timezone = 'Europe/Paris';
    const response = await register(accountId, validFields('/blog/'));
    site.timezone = undefined;
    expect(response.statusCode).toBe(201);
    expect(response.headers?.['Content-Type']).toMatch(/^application\/json/);
    const record = body(response);
    expect(record).toEqual({
      data: {
        uuid: expect.stringMatching(UUID),
        url: `${site.url}/blog`,
        total_credits_used: 0,
        articles_count: 0,
        categories_count: 3,
        created_at: expect.stringMatching(WIRE_TIME),
        // As the plugin reported it (its status answer's `timezone`).
        timezone: 'Europe/Paris',
        // The fake plugin is 1.4: no site index.
        posts_indexed: 0,
        indexed_at: expect.stringMatching(WIRE_TIME),
        index_supported: 0,
      },
      status: { login_is_unauthorized: 0, is_unreachable: 0 },
    });
    expect(response.body).not.toContain(PASSWORD);
    // The plugin was asked who the user is, for the categories and for its index, and nothing else.
    expect(site.requests).toEqual([
      { method: 'GET', route: '/inkpress/v1/status', login: 'inkpress' },
      { method: 'GET', route: '/inkpress/v1/categories', login: 'inkpress' },
      { method: 'GET', route: '/inkpress/v1/index', login: 'inkpress' },
    ]);
  });

  it.each(['multipart', 'urlencoded', 'json'] as const)('accepts a %s body', async (encoding) => {
    const accountId = await newAccount();
    const response = await register(accountId, validFields(), encoding);
    expect(response.statusCode).toBe(201);
  });

  it('normalises the URL: lowercase scheme and host, no default port, no trailing slash or dot', async () => {
    const accountId = await newAccount();
    const port = new URL(site.url).port;
    const response = await register(accountId, {
      ...validFields(),
      url: `  HTTP://LOCALHOST.:${port}/My-Blog//  `,
    });
    expect(response.statusCode).toBe(201);
    expect(body(response).data.url).toBe(`http://localhost:${port}/My-Blog`);
  });

  it('stores the password encrypted with KMS, bound to {accountId, websiteUuid, url}', async () => {
    const accountId = await newAccount();
    const websiteUuid = await registered(accountId);
    const item = (await websiteItems(accountId)).find((entry) => entry.websiteKey === `site#${websiteUuid}`);
    expect(item).toBeDefined();
    const ciphertext = String(item?.passwordCiphertext);
    const url = String(item?.url);
    expect(item?.passwordContextVersion).toBe(2);
    expect(ciphertext).not.toContain(PASSWORD);
    expect(Buffer.from(ciphertext, 'base64').toString('utf8')).not.toContain(PASSWORD);
    expect(JSON.stringify(item)).not.toContain(PASSWORD);

    const kms = new KMSClient({});
    try {
      const { Plaintext } = await kms.send(
        new DecryptCommand({
          CiphertextBlob: Buffer.from(ciphertext, 'base64'),
          EncryptionContext: { accountId, websiteUuid, url },
        }),
      );
      expect(Buffer.from(Plaintext ?? new Uint8Array()).toString('utf8')).toBe(PASSWORD);
      for (const EncryptionContext of <Record<string, string>[]>[
        { accountId, websiteUuid: '00000000-0000-4000-8000-000000000000', url },
        { accountId, websiteUuid, url: `${url}/other` },
        { accountId, websiteUuid },
      ]) {
        await expect(
          kms.send(
            new DecryptCommand({ CiphertextBlob: Buffer.from(ciphertext, 'base64'), EncryptionContext }),
          ),
        ).rejects.toThrow();
      }
    } finally {
      kms.destroy();
    }
  });

  it('stores the categories with uuids derived from the website and the site id', async () => {
    const accountId = await newAccount();
    const websiteUuid = await registered(accountId);
    const items = await categoryItems(websiteUuid);
    expect(items.map((item) => [item.cmsId, item.name, item.slug, item.parentCmsId]).sort()).toEqual([
      ['1', 'Uncategorized', 'uncategorized', undefined],
      ['7', 'Recipes', 'recipes', undefined],
      ['9', 'Desserts', 'desserts', '7'],
    ]);
    for (const item of items)
      expect(item.categoryUuid).toBe(categoryUuidFor(websiteUuid, String(item.cmsId)));
  });

  describe('refuses with 422 and stores nothing', () => {
    let accountId: string;
    beforeEach(async () => {
      accountId = await newAccount();
    });
    afterEach(async () => {
      expect(await websiteItems(accountId)).toEqual([]);
      expect(body(await list(accountId)).data).toEqual([]);
    });

    it.each([
      ['no url', { login: 'inkpress', password: PASSWORD }, 'url', 'The url field is required.'],
      [
        'an empty url',
        { url: ' ', login: 'inkpress', password: PASSWORD },
        'url',
        'The url field is required.',
      ],
      ['no login', { url: 'http://x.test', password: PASSWORD }, 'login', 'The login field is required.'],
      [
        'no password',
        { url: 'http://x.test', login: 'inkpress' },
        'password',
        'The password field is required.',
      ],
      [
        'a url without a scheme',
        { url: 'blog.example.com', login: 'inkpress', password: PASSWORD },
        'url',
        'The url must be a full address starting with http:// or https://.',
      ],
      [
        'an ftp url',
        { url: 'ftp://blog.example.com', login: 'inkpress', password: PASSWORD },
        'url',
        'The url must be a full address starting with http:// or https://.',
      ],
      [
        'a url with credentials',
        { url: 'https://admin:pw@blog.example.com', login: 'inkpress', password: PASSWORD },
        'url',
        'The url may not contain a user name or password; send them as login and password.',
      ],
      [
        'a url with a query',
        { url: 'https://blog.example.com/?p=1', login: 'inkpress', password: PASSWORD },
        'url',
        'The url may not contain a query string.',
      ],
      [
        'a url with a fragment',
        { url: 'https://blog.example.com/#top', login: 'inkpress', password: PASSWORD },
        'url',
        'The url may not contain a fragment (#).',
      ],
      [
        'a malformed url',
        { url: 'http://exa mple.com', login: 'inkpress', password: PASSWORD },
        'url',
        'The url is not a valid address.',
      ],
      [
        'a url too long for its storage key',
        { url: `http://blog.example.com/${'a'.repeat(1500)}`, login: 'inkpress', password: PASSWORD },
        'url',
        'The url may not be longer than 900 characters once normalised (a character outside ASCII counts as several).',
      ],
    ])('%s', async (_label, fields, field, message) => {
      const response = await register(accountId, fields as Record<string, string>);
      expect(response.statusCode).toBe(422);
      expect(body(response)).toEqual({ message, errors: { [field]: [message] } });
      expect(site.requests).toEqual([]);
    });

    it('a field sent twice', async () => {
      const twice = await createWebsiteHandler(
        apiEvent('create-website', {
          accountId,
          body: `url=${encodeURIComponent(site.url)}&url=${encodeURIComponent(site.url)}&login=inkpress&password=x`,
          contentType: 'application/x-www-form-urlencoded',
        }),
      );
      expect(twice.statusCode).toBe(422);
      expect(body(twice).errors.url).toEqual(['The url must be one text, given once.']);
    });

    it('an unreachable site (connection refused)', async () => {
      const down = await startFakeWordPress();
      const url = down.url;
      await down.close();
      const response = await register(accountId, { ...validFields(), url });
      expect(response.statusCode).toBe(422);
      expect(Object.keys(body(response).errors)).toEqual(['url']);
      expect(body(response).message).toMatch(
        /^The site could not be reached \(Could not reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\)\)\.$/,
      );
    });

    it('a site answering with a malformed redirect', async () => {
      site.redirectLocation = 'http://exa mple.com/';
      const response = await register(accountId, validFields());
      expect(response.statusCode).toBe(422);
      expect(body(response).errors).toEqual({
        url: [
          expect.stringMatching(
            /^The site could not be reached \(127\.0\.0\.1:\d+ redirected to an invalid address\)\.$/,
          ),
        ],
      });
    });

    it('a site redirecting to a non-http scheme', async () => {
      site.redirectLocation = 'file:///etc/passwd';
      const response = await register(accountId, validFields());
      expect(response.statusCode).toBe(422);
      expect(body(response).errors.url).toEqual([
        expect.stringMatching(/^The site could not be reached \(.*redirected to a file: address/),
      ]);
    });

    it('a plain http url when deployed (private urls not allowed)', async () => {
      const before = process.env.INKPRESS_ALLOW_PRIVATE_URLS;
      process.env.INKPRESS_ALLOW_PRIVATE_URLS = 'false';
      try {
        const deployed = coldStartHandler<typeof createWebsiteHandler>('functions/api/create-website.ts');
        const response = await register(accountId, validFields(), 'multipart', deployed);
        expect(response.statusCode).toBe(422);
        const message = 'The url must use https:// (plain http would send the site password unencrypted).';
        expect(body(response)).toEqual({ message, errors: { url: [message] } });
        expect(site.requests).toEqual([]);
      } finally {
        process.env.INKPRESS_ALLOW_PRIVATE_URLS = before;
      }
    });

    it('a site answering with server errors', async () => {
      site.mode = 'server_error';
      const response = await register(accountId, validFields());
      expect(response.statusCode).toBe(422);
      expect(body(response).errors.url).toEqual([expect.stringMatching(/^The site could not be reached \(/)]);
    });

    it('a site without the plugin (404 rest_no_route)', async () => {
      site.mode = 'no_plugin';
      const response = await register(accountId, validFields());
      expect(response.statusCode).toBe(422);
      expect(body(response)).toEqual({
        message:
          'The Inkpress Connector plugin was not found on this site: install and activate it, then try again.',
        errors: {
          url: [
            'The Inkpress Connector plugin was not found on this site: install and activate it, then try again.',
          ],
        },
        problems: [expect.objectContaining({ code: 'plugin_missing' })],
      });
    });

    it('a site answering HTML (not WordPress with the plugin)', async () => {
      site.mode = 'html';
      const response = await register(accountId, validFields());
      expect(response.statusCode).toBe(422);
      expect(body(response).errors.url).toEqual([
        expect.stringMatching(
          /^The site answered, but not like a WordPress site with the Inkpress Connector plugin/,
        ),
      ]);
    });

    it.each([
      ['a wrong password', 'inkpress', 'wrong'],
      ['an unknown login', 'nobody', PASSWORD],
      ['a user without the Inkpress Editor role (right password)', 'author', 'author pw'],
      ['an administrator holding the role (right password)', 'boss', 'boss pw'],
      ['an editor holding the role (right password)', 'chief', 'chief pw'],
    ])('%s: one message naming every cause, never which', async (_case, login, password) => {
      site.users.set('author', { password: 'author pw', roles: ['author'] });
      site.users.set('boss', { password: 'boss pw', roles: ['administrator', 'inkpress_editor'] });
      site.users.set('chief', { password: 'chief pw', roles: ['editor', 'inkpress_editor'] });
      const response = await register(accountId, { url: site.url, login, password });
      expect(response.statusCode).toBe(422);
      expect(body(response)).toEqual({
        message:
          'login failed: check the user name, the password, and that the user has only the Inkpress Editor role',
        errors: { login: [LOGIN_FAILED_MESSAGE], password: [LOGIN_FAILED_MESSAGE] },
        // The connection doctor's reading, the same for every cause (a real password).
        problems: [
          {
            code: 'login_refused',
            message: expect.stringContaining('tells no one which'),
            fix: expect.stringContaining('Settings > Inkpress Connector'),
          },
        ],
      });
      expect(response.body).not.toContain(password);
    });

    it('logins paused by the site after repeated failures (from elsewhere at our address), even with the right password', async () => {
      // Inkpress itself stops at 3 failed logins per site and user, whatever the account
      // (login-failures.ts): five failures by another client at the same address pause the login.
      site.failedLogins.set('|inkpress', Array(5).fill(Date.now()));
      const response = await register(accountId, validFields());
      expect(response.statusCode).toBe(422);
      expect(body(response).errors).toEqual({
        login: [
          'The site has paused logins for this user for now, after repeated failed logins: try again in 15 minutes.',
        ],
      });
    });

    it('never makes the site pause a login: registrations of several accounts stop after 3 failed logins per site and user', async () => {
      let account = accountId;
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 6; attempt++) {
        if (attempt % 2 === 0) account = await newAccount();
        statuses.push(
          (
            await register(account, {
              ...validFields('/other'),
              login: 'editor',
              password: `wrong ${attempt}`,
            })
          ).statusCode,
        );
      }
      expect(statuses).toEqual(Array(6).fill(422));
      expect(site.failedLogins.get('/other|editor')).toHaveLength(3);
    });
  });

  it('refuses a private address when private URLs are not allowed (deployed mode)', async () => {
    const accountId = await newAccount();
    const guarded = new WordPressClient({
      ...DEFAULT_SITE_LIMITS,
      allowPrivate: false,
      resolve: systemResolver,
    });
    const attempt = createWebsite({ ...deps.websiteDeps(), cms: guarded }, accountId, validFields());
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    await expect(attempt).rejects.toMatchObject({
      fieldErrors: {
        url: [
          'The url points to a private, loopback, link-local or reserved network address, which is not allowed.',
        ],
      },
    });
    expect(site.requests).toEqual([]);
  });

  it('refuses a URL the account already registered (also as http/https or with a trailing slash)', async () => {
    const accountId = await newAccount();
    await registered(accountId, '/shop');
    for (const url of [
      `${site.url}/shop`,
      `${site.url}/shop/`,
      `${site.url.replace('http:', 'https:')}/shop`,
    ]) {
      site.requests = [];
      const response = await register(accountId, { ...validFields(), url });
      expect(response.statusCode).toBe(422);
      expect(body(response)).toEqual({
        message: 'This website is already registered in your account.',
        errors: { url: ['This website is already registered in your account.'] },
      });
      // Refused before calling the site.
      expect(site.requests).toEqual([]);
    }
    expect(body(await list(accountId)).data).toHaveLength(1);
  });

  it('lets two concurrent registrations of one URL end in exactly one website', async () => {
    const accountId = await newAccount();
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => register(accountId, validFields('/race'))),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 422, 422, 422]);
    const items = await websiteItems(accountId);
    expect(items.filter((item) => String(item.websiteKey).startsWith('site#'))).toHaveLength(1);
    const winner = body(responses.find((response) => response.statusCode === 201) as APIGatewayProxyResult)
      .data.uuid;
    // The losers' categories were cleaned up: only the winner's remain for this account's sites.
    expect(await categoryItems(winner)).toHaveLength(3);
  });

  it('lets another account register the same URL', async () => {
    await registered(await newAccount(), '/shared');
    await registered(await newAccount(), '/shared');
  });
});

describe('GET /v1/websites/<uuid>/show', () => {
  it('returns the website record', async () => {
    const accountId = await newAccount();
    const created = body(await register(accountId, validFields()));
    const response = await show(accountId, created.data.uuid);
    expect(response.statusCode).toBe(200);
    expect(body(response)).toEqual(created);
  });

  it('accepts the uuid in upper case', async () => {
    const accountId = await newAccount();
    const uuid = await registered(accountId);
    expect((await show(accountId, uuid.toUpperCase())).statusCode).toBe(200);
  });

  it.each([
    ['an unknown uuid', () => '6f1c2a9e-8b3d-4c5e-9a7f-1e2d3c4b5a69'],
    ['a malformed uuid', () => 'not-a-uuid'],
  ])('answers 404 JSON for %s', async (_label, uuid) => {
    const response = await show(await newAccount(), uuid());
    expect(response.statusCode).toBe(404);
    expect(body(response)).toEqual({ message: 'Website not found.' });
  });

  it("answers 404 for another account's website", async () => {
    const uuid = await registered(await newAccount());
    const response = await show(await newAccount(), uuid);
    expect(response.statusCode).toBe(404);
    expect(body(response)).toEqual({ message: 'Website not found.' });
  });
});

describe('GET /v1/websites/list', () => {
  it('lists newest first, 20 per page, in the pagination envelope', async () => {
    const accountId = await newAccount();
    const uuids: string[] = [];
    for (let index = 0; index < 23; index++) {
      uuids.push(await registered(accountId, `/site-${index}`));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const newestFirst = [...uuids].reverse();
    const base = 'https://api.example.com/prod/v1/websites/list';

    const first = await list(accountId);
    expect(first.statusCode).toBe(200);
    const page1 = body(first);
    expect(page1.data.map((website: { data: { uuid: string } }) => website.data.uuid)).toEqual(
      newestFirst.slice(0, 20),
    );
    expect(page1.data[0]).toEqual({
      data: {
        uuid: newestFirst[0],
        url: `${site.url}/site-22`,
        total_credits_used: 0,
        articles_count: 0,
        categories_count: 3,
        created_at: expect.stringMatching(WIRE_TIME),
        // The fake site sends no time zone (as a plugin that does not report one).
        timezone: null,
      },
      status: { login_is_unauthorized: 0, is_unreachable: 0 },
    });
    expect(page1.links).toEqual({
      first: `${base}?page=1`,
      last: `${base}?page=2`,
      prev: null,
      next: `${base}?page=2`,
    });
    expect(page1.meta).toEqual({
      current_page: 1,
      from: 1,
      path: base,
      per_page: 20,
      to: 20,
      last_page: 2,
      total: 23,
    });

    const page2 = body(await list(accountId, { page: '2' }));
    expect(page2.data.map((website: { data: { uuid: string } }) => website.data.uuid)).toEqual(
      newestFirst.slice(20),
    );
    expect(page2.links).toEqual({
      first: `${base}?page=1`,
      last: `${base}?page=2`,
      prev: `${base}?page=1`,
      next: null,
    });
    expect(page2.meta).toMatchObject({ current_page: 2, from: 21, to: 23, total: 23 });

    const page3 = body(await list(accountId, { page: '3' }));
    expect(page3.data).toEqual([]);
    expect(page3.meta).toMatchObject({ current_page: 3, from: null, to: null, total: 23 });
  });

  it('gives an empty first page to an account without websites', async () => {
    const page = body(await list(await newAccount()));
    expect(page.data).toEqual([]);
    expect(page.meta).toMatchObject({ current_page: 1, from: null, to: null, total: 0, last_page: 1 });
  });

  it("never shows another account's websites", async () => {
    await registered(await newAccount());
    expect(body(await list(await newAccount())).data).toEqual([]);
  });

  it.each([['0'], ['-1'], ['abc'], ['1.5']])('answers 422 for page=%s', async (page) => {
    const response = await list(await newAccount(), { page });
    expect(response.statusCode).toBe(422);
    expect(Object.keys(body(response).errors)).toEqual(['page']);
  });
});

describe('GET /v1/websites/<uuid>/categories', () => {
  it('lists the categories by name in the pagination envelope', async () => {
    const accountId = await newAccount();
    const uuid = await registered(accountId);
    const response = await categories(accountId, uuid);
    expect(response.statusCode).toBe(200);
    const page = body(response);
    expect(page.data).toEqual([
      { uuid: categoryUuidFor(uuid, '9'), name: 'Desserts', slug: 'desserts', cms_id: '9' },
      { uuid: categoryUuidFor(uuid, '7'), name: 'Recipes', slug: 'recipes', cms_id: '7' },
      { uuid: categoryUuidFor(uuid, '1'), name: 'Uncategorized', slug: 'uncategorized', cms_id: '1' },
    ]);
    const base = `https://api.example.com/prod/v1/websites/${uuid}/categories`;
    expect(page.links).toEqual({ first: `${base}?page=1`, last: `${base}?page=1`, prev: null, next: null });
    expect(page.meta).toEqual({
      current_page: 1,
      from: 1,
      path: base,
      per_page: 20,
      to: 3,
      last_page: 1,
      total: 3,
    });
  });

  it('pages through many categories', async () => {
    const accountId = await newAccount();
    const saved = site.categories;
    site.categories = Array.from({ length: 45 }, (_, index) => ({
      id: index + 10,
      name: `Topic ${String(index).padStart(2, '0')}`,
      slug: `topic-${index}`,
      parent: 0,
    }));
    try {
      const uuid = await registered(accountId, '/many');
      expect(body(await show(accountId, uuid)).data.categories_count).toBe(45);
      const page3 = body(await categories(accountId, uuid, { page: '3' }));
      expect(page3.data.map((category: { name: string }) => category.name)).toEqual([
        'Topic 40',
        'Topic 41',
        'Topic 42',
        'Topic 43',
        'Topic 44',
      ]);
      expect(page3.meta).toMatchObject({ from: 41, to: 45, total: 45, last_page: 3 });
    } finally {
      site.categories = saved;
    }
  });

  it('stores a site list with duplicate ids once per id', async () => {
    const accountId = await newAccount();
    const saved = site.categories;
    site.categories = [
      { id: 1, name: 'Uncategorized', slug: 'uncategorized', parent: 0 },
      { id: 4, name: 'News', slug: 'news', parent: 0 },
      { id: 4, name: 'News', slug: 'news', parent: 0 },
      { id: 1, name: 'Uncategorized', slug: 'uncategorized', parent: 0 },
    ];
    try {
      const uuid = await registered(accountId, '/duplicates');
      expect(body(await show(accountId, uuid)).data.categories_count).toBe(2);
      expect(await categoryItems(uuid)).toHaveLength(2);
    } finally {
      site.categories = saved;
    }
  });

  it('keeps at most 2,000 categories (the oldest), with names and slugs of at most 200 characters', async () => {
    const accountId = await newAccount();
    const saved = site.categories;
    site.categories = Array.from({ length: 2_500 }, (_, index) => ({
      id: 2_500 - index,
      name: `${'Long name '.repeat(30)}${index}`,
      slug: `${'long-slug-'.repeat(30)}${index}`,
      parent: 0,
    }));
    try {
      const uuid = await registered(accountId, '/very-many');
      expect(body(await show(accountId, uuid)).data.categories_count).toBe(2_000);
      const items = await categoryItems(uuid);
      expect(items).toHaveLength(2_000);
      expect(Math.max(...items.map((item) => Number(item.cmsId)))).toBe(2_000);
      for (const item of items) {
        expect(String(item.name).length).toBeLessThanOrEqual(200);
        expect(String(item.slug).length).toBeLessThanOrEqual(200);
      }
    } finally {
      site.categories = saved;
    }
  });

  it("answers 404 for another account's or an unknown website", async () => {
    const uuid = await registered(await newAccount());
    expect((await categories(await newAccount(), uuid)).statusCode).toBe(404);
    expect((await categories(await newAccount(), 'nope')).statusCode).toBe(404);
  });
});

describe('PUT /v1/websites/<uuid>/delete', () => {
  it('removes the website, its URL guard and its categories, and keeps its articles', async () => {
    const accountId = await newAccount();
    const uuid = await registered(accountId, '/to-delete');
    const categoryUuid = categoryUuidFor(uuid, '7');
    const articleResponse = await createArticleHandler(
      apiEvent('create-article', {
        accountId,
        ...multipartBody({
          keyword: 'lemon tart',
          h2_count: '2',
          ai_model: 'gpt-3.5-turbo',
          language: 'en',
          website_uuid: uuid,
          category_uuid: categoryUuid,
        }),
      }),
    );
    expect(articleResponse.statusCode).toBe(202);
    const articleUuid = body(articleResponse).article_uuid;
    const before = body(
      await showArticleHandler(
        apiEvent('show-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
      ),
    );
    expect(before.data.website.uuid).toBe(uuid);
    expect(before.data.category).toEqual({
      uuid: categoryUuid,
      name: 'Recipes',
      slug: 'recipes',
      cms_id: '7',
    });

    const response = await remove(accountId, uuid);
    expect(response.statusCode).toBe(200);
    expect(body(response)).toEqual({
      message: `The website ${site.url}/to-delete was deleted. Its articles are kept.`,
    });

    expect(await websiteItems(accountId)).toEqual([]);
    expect(await categoryItems(uuid)).toEqual([]);
    expect((await show(accountId, uuid)).statusCode).toBe(404);
    expect((await categories(accountId, uuid)).statusCode).toBe(404);
    expect((await remove(accountId, uuid)).statusCode).toBe(404);

    const after = await showArticleHandler(
      apiEvent('show-article', { accountId, pathParameters: { article_uuid: articleUuid } }),
    );
    expect(after.statusCode).toBe(200);
    expect(body(after).data).toMatchObject({ uuid: articleUuid, website: null, category: null });

    // The URL can be registered again.
    expect((await register(accountId, validFields('/to-delete'))).statusCode).toBe(201);
  });

  it('answers one of ten simultaneous deletes with 200 and the others with 404, as after it', async () => {
    const accountId = await newAccount();
    const uuid = await registered(accountId, '/deleted-at-once');
    const responses = await Promise.all(Array.from({ length: 10 }, () => remove(accountId, uuid)));
    expect(responses.map((response) => response.statusCode).sort()).toEqual([200, ...Array(9).fill(404)]);
    for (const response of responses.filter((each) => each.statusCode === 404)) {
      expect(body(response)).toEqual({ message: 'Website not found.' });
    }
    expect(await websiteItems(accountId)).toEqual([]);
    expect(await categoryItems(uuid)).toEqual([]);
  });

  it("answers 404 for another account's website and leaves it alone", async () => {
    const owner = await newAccount();
    const uuid = await registered(owner);
    const response = await remove(await newAccount(), uuid);
    expect(response.statusCode).toBe(404);
    expect(body(response)).toEqual({ message: 'Website not found.' });
    expect((await show(owner, uuid)).statusCode).toBe(200);
    expect(await categoryItems(uuid)).toHaveLength(3);
  });

  it('answers 404 for a malformed uuid', async () => {
    expect((await remove(await newAccount(), '../etc')).statusCode).toBe(404);
  });
});

describe('site password cipher (KMS)', () => {
  const cipher = () => new KmsPasswordCipher(new KMSClient({}), resources.keyId);

  it('round-trips a password under the same context', async () => {
    const context = { accountId: 'a1', websiteUuid: 'w1', url: 'https://blog.example.com' };
    const ciphertext = await cipher().encrypt('pässwörd with spaces ', context);
    expect(ciphertext).not.toContain('pässwörd');
    await expect(cipher().decrypt(ciphertext, context)).resolves.toBe('pässwörd with spaces ');
  });

  it('refuses to decrypt under another website, account or URL, or without the URL', async () => {
    const url = 'https://blog.example.com';
    const ciphertext = await cipher().encrypt('secret', { accountId: 'a1', websiteUuid: 'w1', url });
    await expect(cipher().decrypt(ciphertext, { accountId: 'a1', websiteUuid: 'w2', url })).rejects.toThrow();
    await expect(cipher().decrypt(ciphertext, { accountId: 'a2', websiteUuid: 'w1', url })).rejects.toThrow();
    await expect(
      cipher().decrypt(ciphertext, { accountId: 'a1', websiteUuid: 'w1', url: 'https://evil.example.com' }),
    ).rejects.toThrow();
    await expect(cipher().decrypt(ciphertext, { accountId: 'a1', websiteUuid: 'w1' })).rejects.toThrow();
  });
});

describe('stored data', () => {
  it('never holds a plain password anywhere in the websites table', async () => {
    const accountId = await newAccount();
    await registered(accountId);
    const { Items } = await dynamoDocumentClient().send(
      new ScanCommand({ TableName: resources.tableNames.websites }),
    );
    expect(JSON.stringify(Items)).not.toContain(PASSWORD);
  });
});
