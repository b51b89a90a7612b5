/**
 * `PUT /v1/websites/<uuid>/update`: new credentials for a registered site, through the real
 * handler against DynamoDB Local, moto KMS/SQS and a fake plugin server on 127.0.0.1. Wrong
 * credentials change nothing; right ones are stored encrypted, clear the flags, refresh the
 * categories and make the website's pending publications due for the next sweep.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as showWebsiteHandler } from '../../functions/api/show-website';
import { handler as updateWebsiteHandler } from '../../functions/api/update-website';
import { createAccount } from '../../functions/core/accounts';
import { retryDuePublications } from '../../functions/core/publishing/sweep-publishing';
import { LOGIN_FAILED_MESSAGE } from '../../functions/core/websites/site-failures';
import { logger } from '../../functions/shared/logger';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeCategory, type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { drainQueue } from '../support/generation-queue';
import { multipartBody, urlencodedBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

const OLD_PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'new pässword with spaces ';
const MINUTE = 60_000;

let resources: ProvisionedResources;
let site: FakeWordPress;
let siteCategories: FakeCategory[];

beforeAll(async () => {
  site = await startFakeWordPress();
  siteCategories = [...site.categories];
  resources = await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_SECRET_ARN;
});

afterAll(async () => {
  await site.close();
});

beforeEach(async () => {
  await site.start();
  site.mode = 'ok';
  site.categories = [...siteCategories];
  site.users.clear();
  site.failedLogins.clear();
  site.users.set('inkpress', { password: OLD_PASSWORD, roles: ['inkpress_editor'] });
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

afterEach(() => {
  jest.restoreAllMocks();
});

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);

async function newAccount(): Promise<string> {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Update test', credits: 500 },
  );
  return account.accountId;
}

async function register(accountId: string, path: string): Promise<string> {
  const response = await createWebsiteHandler(
    apiEvent('create-website', {
      accountId,
      ...urlencodedBody({ url: `${site.url}${path}`, login: 'inkpress', password: OLD_PASSWORD }),
    }),
  );
  expect(response.statusCode).toBe(201);
  return body(response).data.uuid;
}

const update = (
  accountId: string,
  websiteUuid: string,
  encoded: { body: string | Buffer; contentType: string },
) =>
  updateWebsiteHandler(
    apiEvent('update-website', { accountId, pathParameters: { website_uuid: websiteUuid }, ...encoded }),
  );

const showWebsite = async (accountId: string, websiteUuid: string) =>
  showWebsiteHandler(apiEvent('show-website', { accountId, pathParameters: { website_uuid: websiteUuid } }));

async function stored(accountId: string, websiteUuid: string) {
  const website = await deps.websiteStore().get(accountId, websiteUuid);
  if (!website) throw new Error('website missing');
  return website;
}

const decrypt = (ciphertext: string, accountId: string, websiteUuid: string, url: string) =>
  deps.passwordCipher().decrypt(ciphertext, { accountId, websiteUuid, url });

/** Sets both flags, as failed publications or health checks would. */
const flag = (accountId: string, websiteUuid: string) =>
  deps
    .websiteStore()
    .recordHealth(accountId, websiteUuid, { loginIsUnauthorized: true, isUnreachable: true });

/** Every argument given to the logger during the test, as one string. */
function spyOnLogs(): () => string {
  const spies = (['debug', 'info', 'warn', 'error'] as const).map((level) => jest.spyOn(logger, level));
  return () => JSON.stringify(spies.flatMap((spy) => spy.mock.calls));
}

describe('PUT /v1/websites/<uuid>/update', () => {
  it('refuses a wrong password with a 422 and changes nothing', async () => {
    const accountId = await newAccount();
    const websiteUuid = await register(accountId, '/wrong');
    await flag(accountId, websiteUuid);
    const before = await stored(accountId, websiteUuid);
    site.users.set('inkpress', { password: NEW_PASSWORD, roles: ['inkpress_editor'] });

    const response = await update(
      accountId,
      websiteUuid,
      urlencodedBody({ login: 'inkpress', password: 'not the password' }),
    );
    expect(response.statusCode).toBe(422);
    expect(body(response).errors).toEqual({
      login: [LOGIN_FAILED_MESSAGE],
      password: [LOGIN_FAILED_MESSAGE],
    });

    const after = await stored(accountId, websiteUuid);
    expect(after).toEqual(before);
    await expect(decrypt(after.passwordCiphertext, accountId, websiteUuid, after.url)).resolves.toBe(
      OLD_PASSWORD,
    );
  });

  it.each([
    ['the plugin is missing', 'no_plugin' as const, 'url', 'Inkpress Connector plugin was not found'],
    ['the site answers with HTML', 'html' as const, 'url', 'not like a WordPress site'],
  ])('refuses with a 422 when %s, and changes nothing', async (_case, mode, field, message) => {
    const accountId = await newAccount();
    const websiteUuid = await register(accountId, `/${mode}`);
    const before = await stored(accountId, websiteUuid);
    site.mode = mode;
    const response = await update(
      accountId,
      websiteUuid,
      urlencodedBody({ login: 'inkpress', password: OLD_PASSWORD }),
    );
    expect(response.statusCode).toBe(422);
    expect(body(response).errors[field]).toEqual([expect.stringContaining(message)]);
    expect(await stored(accountId, websiteUuid)).toEqual(before);
  });

  it('refuses with a 422 when the site is down or the user lacks the role', async () => {
    const accountId = await newAccount();
    const websiteUuid = await register(accountId, '/down');
    const before = await stored(accountId, websiteUuid);
    site.users.set('other', { password: NEW_PASSWORD, roles: ['subscriber'] });
    const noRole = await update(
      accountId,
      websiteUuid,
      urlencodedBody({ login: 'other', password: NEW_PASSWORD }),
    );
    expect(noRole.statusCode).toBe(422);
    expect(body(noRole).errors.login).toEqual([LOGIN_FAILED_MESSAGE]);

    await site.stop();
    const down = await update(
      accountId,
      websiteUuid,
      urlencodedBody({ login: 'inkpress', password: OLD_PASSWORD }),
    );
    expect(down.statusCode).toBe(422);
    expect(body(down).errors.url).toEqual([expect.stringContaining('could not be reached')]);
    expect(await stored(accountId, websiteUuid)).toEqual(before);
  });

  it('requires both login and password', async () => {
    const accountId = await newAccount();
    const websiteUuid = await register(accountId, '/required');
    const requests = site.requests.length;
    const response = await update(accountId, websiteUuid, urlencodedBody({}));
    expect(response.statusCode).toBe(422);
    expect(body(response).errors).toEqual({
      login: ['The login field is required.'],
      password: ['The password field is required.'],
    });
    expect(site.requests.length).toBe(requests);
  });

  it('stores the new password encrypted and bound to the website, clears the flags, refreshes the categories', async () => {
    const accountId = await newAccount();
    const websiteUuid = await register(accountId, '/right');
    await flag(accountId, websiteUuid);
    const before = await stored(accountId, websiteUuid);
    site.users.clear();
    site.users.set('new-editor', { password: NEW_PASSWORD, roles: ['inkpress_editor'] });
    site.categories.push({ id: 12, name: 'Drinks', slug: 'drinks', parent: 0 });
    const logs = spyOnLogs();

    const response = await update(
      accountId,
      websiteUuid,
      multipartBody({ login: 'new-editor', password: NEW_PASSWORD }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain(NEW_PASSWORD.trim());
    expect(body(response)).toEqual(body(await showWebsite(accountId, websiteUuid)));
    expect(body(response)).toMatchObject({
      data: { uuid: websiteUuid, url: before.url, categories_count: 4 },
      status: { login_is_unauthorized: 0, is_unreachable: 0 },
    });

    const after = await stored(accountId, websiteUuid);
    expect(after.login).toBe('new-editor');
    expect(after.passwordCiphertext).not.toBe(before.passwordCiphertext);
    expect(JSON.stringify(after)).not.toContain(NEW_PASSWORD.trim());
    expect(after.passwordContextVersion).toBe(2);
    await expect(decrypt(after.passwordCiphertext, accountId, websiteUuid, after.url)).resolves.toBe(
      NEW_PASSWORD,
    );
    await expect(
      decrypt(after.passwordCiphertext, accountId, '00000000-0000-4000-8000-000000000000', after.url),
    ).rejects.toThrow();
    expect(logs()).not.toContain(NEW_PASSWORD.trim());
  });

  it('accepts JSON bodies and upper-case uuids', async () => {
    const accountId = await newAccount();
    const websiteUuid = await register(accountId, '/json');
    site.users.set('inkpress', { password: NEW_PASSWORD, roles: ['inkpress_editor'] });
    const response = await update(accountId, websiteUuid.toUpperCase(), {
      body: JSON.stringify({ login: 'inkpress', password: NEW_PASSWORD }),
      contentType: 'application/json',
    });
    expect(response.statusCode).toBe(200);
    expect(body(response).data.uuid).toBe(websiteUuid);
  });

  it('publishes an article refused with 401 on the next sweep after the update, exactly once', async () => {
    const accountId = await newAccount();
    const websiteUuid = await register(accountId, '/publish');
    const created = await createArticleHandler(
      apiEvent('create-article', {
        accountId,
        ...multipartBody({
          keyword: 'lemon tart',
          h2_count: '3',
          ai_model: 'gpt-3.5-turbo',
          language: 'en',
          website_uuid: websiteUuid,
        }),
      }),
    );
    expect(created.statusCode).toBe(202);
    const articleUuid: string = body(created).article_uuid;
    site.users.set('inkpress', { password: NEW_PASSWORD, roles: ['inkpress_editor'] });
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);
    expect(body(await showWebsite(accountId, websiteUuid)).status.login_is_unauthorized).toBe(1);
    const postsOf = () => [...site.posts.values()].filter((post) => post.article_uuid === articleUuid);
    expect(postsOf()).toHaveLength(0);

    const sweep = (minutes = 0) =>
      retryDuePublications({ ...deps.publishDeps(), clock: () => new Date(Date.now() + minutes * MINUTE) });
    // The retry is not due yet.
    expect(await sweep()).toMatchObject({ published: 0, retry_scheduled: 0 });

    const response = await update(
      accountId,
      websiteUuid,
      urlencodedBody({ login: 'inkpress', password: NEW_PASSWORD }),
    );
    expect(response.statusCode).toBe(200);
    // Due once an attempt still running with the old login would have ended.
    expect(await sweep()).toMatchObject({ published: 0 });
    expect(await sweep(1)).toMatchObject({ published: 1 });
    expect(postsOf()).toHaveLength(1);
    expect((await deps.articleStore().get(accountId, articleUuid))?.publishState).toBe('published');

    expect(await sweep(120)).toMatchObject({ published: 0, retry_scheduled: 0 });
    expect(postsOf()).toHaveLength(1);
  });

  it("answers 404 for another account's website, an unknown uuid and a malformed one, changing nothing", async () => {
    const owner = await newAccount();
    const websiteUuid = await register(owner, '/foreign');
    const before = await stored(owner, websiteUuid);
    const other = await newAccount();
    site.users.set('inkpress', { password: NEW_PASSWORD, roles: ['inkpress_editor'] });
    const fields = urlencodedBody({ login: 'inkpress', password: NEW_PASSWORD });
    const requests = site.requests.length;

    for (const [accountId, uuid] of [
      [other, websiteUuid],
      [owner, '00000000-0000-4000-8000-000000000000'],
      [owner, 'not-a-uuid'],
    ] as const) {
      const response = await update(accountId, uuid, fields);
      expect(response.statusCode).toBe(404);
      expect(body(response)).toEqual({ message: 'Website not found.' });
    }
    expect(site.requests.length).toBe(requests);
    expect(await stored(owner, websiteUuid)).toEqual(before);
  });
});
