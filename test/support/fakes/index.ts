/**
 * Every port the use cases take, in memory, wired to one shared set of tables (as the adapters
 * share DynamoDB): `createFakes()` gives a fresh world per test.
 */
import { createAccount } from '../../../functions/core/accounts';
import type { Website } from '../../../functions/core/websites/website';
import { FakeAccountStore, FakeTokenStore } from './fake-accounts';
import { FakeArticleStore } from './fake-articles';
import { FakeBatchStore } from './fake-batches';
import { FakeConnectionProbes } from './fake-probes';
import { FakePublicationStore } from './fake-publications';
import {
  FakeClock,
  FakeCmsClient,
  FakeGenerationQueue,
  FakeModelProvider,
  FakePasswordCipher,
} from './fake-services';
import { FakeIndexSource, FakeSiteIndexStore } from './fake-site-index';
import { FakeSiteProfileStore } from './fake-site-profiles';
import { FakeUsageStore } from './fake-usage';
import {
  FakeReceiverUrlPolicy,
  FakeSecretCipher,
  FakeWebhookQueue,
  FakeWebhookSender,
  FakeWebhookStore,
} from './fake-webhooks';
import { FakeCategoryStore, FakeLoginFailureStore, FakeWebsiteStore } from './fake-websites';
import { InMemoryTables } from './tables';

export * from './fake-accounts';
export * from './fake-articles';
export * from './fake-batches';
export * from './fake-probes';
export * from './fake-publications';
export * from './fake-services';
export * from './fake-site-index';
export * from './fake-site-profiles';
export * from './fake-sources';
export * from './fake-usage';
export * from './fake-webhooks';
export * from './fake-websites';
export { InMemoryTables } from './tables';

export function createFakes(start?: string) {
  const tables = new InMemoryTables();
  const time = new FakeClock(start);
  const fakes = {
    tables,
    time,
    clock: time.clock,
    accounts: new FakeAccountStore(tables),
    tokens: new FakeTokenStore(tables),
    articles: new FakeArticleStore(tables),
    batches: new FakeBatchStore(tables),
    publications: new FakePublicationStore(tables),
    websites: new FakeWebsiteStore(tables),
    categories: new FakeCategoryStore(tables),
    profiles: new FakeSiteProfileStore(tables),
    loginFailures: new FakeLoginFailureStore(),
    usage: new FakeUsageStore(tables),
    queue: new FakeGenerationQueue(),
    models: new FakeModelProvider(),
    cms: new FakeCmsClient(),
    probes: new FakeConnectionProbes(),
    cipher: new FakePasswordCipher(),
    webhooks: new FakeWebhookStore(),
    webhookQueue: new FakeWebhookQueue(),
    secretCipher: new FakeSecretCipher(),
    sender: new FakeWebhookSender(),
    receiverUrls: new FakeReceiverUrlPolicy(),
    siteIndex: new FakeSiteIndexStore(),
    indexSource: new FakeIndexSource(),
  };
  return {
    ...fakes,
    /** A new account with these credits and daily limit; returns its id. */
    async account(credits: number, dailyLimit = 100): Promise<string> {
      const { account } = await createAccount(
        { accounts: fakes.accounts, tokens: fakes.tokens, now: fakes.clock },
        { name: 'Test', credits, dailyLimit },
      );
      return account.accountId;
    },
    /** A registered website of the account (password "secret"), healthy. */
    async website(accountId: string, overrides: Partial<Website> = {}): Promise<Website> {
      const websiteUuid = overrides.websiteUuid ?? crypto.randomUUID();
      const url = overrides.url ?? `https://site-${websiteUuid.slice(0, 8)}.example.com`;
      const website: Website = {
        accountId,
        websiteUuid,
        url,
        login: 'inkpress',
        passwordCiphertext: await fakes.cipher.encrypt('secret', { accountId, websiteUuid, url }),
        passwordContextVersion: 2,
        loginIsUnauthorized: false,
        isUnreachable: false,
        totalCreditsUsed: 0,
        articlesCount: 0,
        categoriesCount: 0,
        createdAt: fakes.clock().toISOString(),
        ...overrides,
      };
      await fakes.websites.create(website, url);
      return website;
    },
  };
}

export type Fakes = ReturnType<typeof createFakes>;
