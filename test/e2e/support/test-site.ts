/** What every end-to-end test starts from: the test WordPress's settings and an account with the site registered. */
import { handler as createWebsiteHandler } from '../../../functions/api/create-website';
import { createAccount } from '../../../functions/core/accounts';
import * as deps from '../../support/deps';
import { apiEvent } from '../../support/events';
import { multipartBody } from '../../support/multipart';

/** A setting of the test WordPress, set by the e2e global set-up. */
export function e2eEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through npm run test:e2e (jest.e2e.config.js)`);
  return value;
}

/** A new account with `credits`, and the test WordPress registered as its website (201 expected). */
export async function registerTestSite(
  name: string,
  credits: number,
): Promise<{ accountId: string; websiteUuid: string }> {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name, credits, dailyLimit: 1000 },
  );
  const response = await createWebsiteHandler(
    apiEvent('create-website', {
      accountId: account.accountId,
      ...multipartBody({
        url: `${e2eEnv('WP_URL')}/`,
        login: e2eEnv('WP_LOGIN'),
        password: e2eEnv('WP_PASSWORD'),
      }),
    }),
  );
  if (response.statusCode !== 201) {
    throw new Error(`Registering the test site answered ${response.statusCode}: ${response.body}`);
  }
  return { accountId: account.accountId, websiteUuid: JSON.parse(response.body).data.uuid };
}
