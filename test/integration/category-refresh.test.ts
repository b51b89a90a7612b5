/**
 * `POST /v1/websites/<uuid>/categories/refresh` through its handler, against DynamoDB Local,
 * moto KMS and the fake plugin server: a category added on the site appears, one removed goes,
 * and a failing site is flagged as on any other call and answers with what failed.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as listCategoriesHandler } from '../../functions/api/list-categories';
import { handler as refreshHandler } from '../../functions/api/refresh-categories';
import { handler as updateWebsiteHandler } from '../../functions/api/update-website';
import { createAccount } from '../../functions/core/accounts';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
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
    { name: 'Refresh test', credits: 10 },
  );
  accountId = account.accountId;
});

afterAll(async () => {
  await site.close();
});

beforeEach(async () => {
  await site.start();
  site.mode = 'ok';
  site.users.set('inkpress', { password: PASSWORD, roles: ['inkpress_editor'] });
});

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const refresh = (websiteUuid: string, account = accountId) =>
  refreshHandler(
    apiEvent('refresh-categories', { accountId: account, pathParameters: { website_uuid: websiteUuid } }),
  );

async function register(path: string): Promise<string> {
  const response = await createWebsiteHandler(
    apiEvent('create-website', {
      accountId,
      ...urlencodedBody({ url: `${site.url}${path}`, login: 'inkpress', password: PASSWORD }),
    }),
  );
  expect(response.statusCode).toBe(201);
  return body(response).data.uuid;
}

async function categoryNames(websiteUuid: string): Promise<string[]> {
  const response = await listCategoriesHandler(
    apiEvent('list-categories', { accountId, pathParameters: { website_uuid: websiteUuid }, query: {} }),
  );
  return body(response).data.map((category: { name: string }) => category.name);
}

describe('category refresh', () => {
  it('shows a category added on the site, and drops one removed there', async () => {
    const websiteUuid = await register('/refresh');
    expect(await categoryNames(websiteUuid)).not.toContain('Travel');
    const original = [...site.categories];
    site.categories = [
      ...original.filter((category) => category.slug !== 'desserts'),
      { id: 42, name: 'Travel', slug: 'travel', parent: 0 },
    ];
    try {
      const response = await refresh(websiteUuid);
      expect(response.statusCode).toBe(200);
      expect(body(response)).toMatchObject({
        data: { uuid: websiteUuid, categories_count: 3 },
        status: { login_is_unauthorized: 0, is_unreachable: 0 },
      });
      expect(await categoryNames(websiteUuid)).toEqual(['Recipes', 'Travel', 'Uncategorized']);
    } finally {
      site.categories = original;
    }
  });

  it('flags a site that is down (502) and clears the flag once it answers again', async () => {
    const websiteUuid = await register('/down');
    await site.stop();
    const failed = await refresh(websiteUuid);
    expect(failed.statusCode).toBe(502);
    expect(body(failed).message).toMatch(/^The site could not be reached .*is_unreachable is set/);
    expect((await deps.websiteStore().get(accountId, websiteUuid))?.isUnreachable).toBe(true);

    await site.start();
    const healed = await refresh(websiteUuid);
    expect(healed.statusCode).toBe(200);
    expect(body(healed).status).toEqual({ login_is_unauthorized: 0, is_unreachable: 0 });
  });

  it('flags a refused login (409) and says how to fix it', async () => {
    const websiteUuid = await register('/refused');
    site.users.set('inkpress', { password: 'changed on the site', roles: ['inkpress_editor'] });
    const response = await refresh(websiteUuid);
    expect(response.statusCode).toBe(409);
    expect(body(response).message).toMatch(
      /refused the stored login.*PUT \/v1\/websites\/\{website_uuid\}\/update/,
    );
    expect((await deps.websiteStore().get(accountId, websiteUuid))?.loginIsUnauthorized).toBe(true);
  });

  it('does not send a refused login again (the plugin would pause it for every caller); new credentials work at once', async () => {
    const websiteUuid = await register('/refused-again');
    site.users.set('inkpress', { password: 'changed on the site', roles: ['inkpress_editor'] });
    expect((await refresh(websiteUuid)).statusCode).toBe(409);
    const loginsSent = () => site.requests.filter((request) => request.login !== null).length;
    const sentBefore = loginsSent();
    for (let attempt = 0; attempt < 5; attempt++) {
      const again = await refresh(websiteUuid);
      expect(again.statusCode).toBe(409);
      expect(body(again).message).toMatch(
        /does not send it again.*PUT \/v1\/websites\/\{website_uuid\}\/update/,
      );
    }
    expect(loginsSent()).toBe(sentBefore);

    // One refusal so far: the owner's new password is accepted, and refresh works again.
    const updated = await updateWebsiteHandler(
      apiEvent('update-website', {
        accountId,
        pathParameters: { website_uuid: websiteUuid },
        ...urlencodedBody({ login: 'inkpress', password: 'changed on the site' }),
      }),
    );
    expect(updated.statusCode).toBe(200);
    expect((await refresh(websiteUuid)).statusCode).toBe(200);
  });

  it("answers 404 for an unknown website or another account's", async () => {
    const websiteUuid = await register('/foreign');
    expect((await refresh('00000000-0000-4000-8000-00000000dead')).statusCode).toBe(404);
    expect((await refresh(websiteUuid, '00000000-0000-4000-8000-000000000999')).statusCode).toBe(404);
    expect((await refresh('not-a-uuid')).statusCode).toBe(404);
  });
});
