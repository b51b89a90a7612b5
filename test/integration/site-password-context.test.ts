/**
 * Site passwords are bound to `{accountId, websiteUuid, url}` in moto KMS: a ciphertext moved to
 * another URL does not decrypt, and records written before the URL was bound (no
 * `passwordContextVersion`) migrate on their next read: a health check or a publication.
 */
import { EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { websiteKeys } from '../../functions/adapters/dynamodb/keys';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { createAccount } from '../../functions/core/accounts';
import { checkWebsite } from '../../functions/core/publishing/sweep-publishing';
import { siteAccessOf } from '../../functions/core/websites/site-access';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { drainQueue } from '../support/generation-queue';
import { multipartBody, urlencodedBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

const PASSWORD = 'correct horse battery';
let resources: ProvisionedResources;
let site: FakeWordPress;

beforeAll(async () => {
  site = await startFakeWordPress();
  resources = await provisionTestResources({ INKPRESS_LOCAL_MODE: 'true', PUBLIC_BASE_URL: '' });
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_SECRET_ARN;
});

afterAll(async () => {
  await site.close();
});

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);

async function registeredWebsite(path: string) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Password context', credits: 100 },
  );
  const response = await createWebsiteHandler(
    apiEvent('create-website', {
      accountId: account.accountId,
      ...urlencodedBody({ url: `${site.url}${path}`, login: 'inkpress', password: PASSWORD }),
    }),
  );
  expect(response.statusCode).toBe(201);
  return { accountId: account.accountId, websiteUuid: body(response).data.uuid as string };
}

async function stored(accountId: string, websiteUuid: string) {
  const website = await deps.websiteStore().get(accountId, websiteUuid);
  if (!website) throw new Error('website missing');
  return website;
}

/** Rewrites a website as it was stored before the URL was bound: legacy context, no version. */
async function makeLegacy(accountId: string, websiteUuid: string) {
  const kms = new KMSClient({});
  try {
    const { CiphertextBlob } = await kms.send(
      new EncryptCommand({
        KeyId: resources.keyId,
        Plaintext: Buffer.from(PASSWORD, 'utf8'),
        EncryptionContext: { accountId, websiteUuid },
      }),
    );
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: resources.tableNames.websites,
        Key: websiteKeys.website(accountId, websiteUuid),
        UpdateExpression: 'SET passwordCiphertext = :ciphertext REMOVE passwordContextVersion',
        ExpressionAttributeValues: { ':ciphertext': Buffer.from(CiphertextBlob ?? []).toString('base64') },
      }),
    );
  } finally {
    kms.destroy();
  }
  const legacy = await stored(accountId, websiteUuid);
  expect(legacy.passwordContextVersion).toBeUndefined();
  return legacy;
}

const cipher = () => deps.passwordCipher();

async function expectMigrated(accountId: string, websiteUuid: string, legacyCiphertext: string) {
  const after = await stored(accountId, websiteUuid);
  expect(after.passwordContextVersion).toBe(2);
  expect(after.passwordCiphertext).not.toBe(legacyCiphertext);
  await expect(
    cipher().decrypt(after.passwordCiphertext, { accountId, websiteUuid, url: after.url }),
  ).resolves.toBe(PASSWORD);
  await expect(cipher().decrypt(after.passwordCiphertext, { accountId, websiteUuid })).rejects.toThrow();
}

describe('site password encryption context', () => {
  it('does not decrypt a password once the website record points at another URL', async () => {
    const { accountId, websiteUuid } = await registeredWebsite('/moved');
    const website = await stored(accountId, websiteUuid);
    await expect(siteAccessOf(deps.publishDeps(), website)).resolves.toMatchObject({ password: PASSWORD });
    await expect(
      siteAccessOf(deps.publishDeps(), { ...website, url: 'https://attacker.example.com' }),
    ).rejects.toThrow();
  });

  it('migrates an old record on its next health check', async () => {
    const { accountId, websiteUuid } = await registeredWebsite('/legacy-check');
    const legacy = await makeLegacy(accountId, websiteUuid);
    expect(await checkWebsite(deps.publishDeps(), legacy, new Date())).toBe('healthy');
    await expectMigrated(accountId, websiteUuid, legacy.passwordCiphertext);
    // Read again: already migrated, nothing rewritten.
    const migrated = await stored(accountId, websiteUuid);
    expect(await checkWebsite(deps.publishDeps(), migrated, new Date())).toBe('healthy');
    expect((await stored(accountId, websiteUuid)).passwordCiphertext).toBe(migrated.passwordCiphertext);
  });

  it('migrates an old record when an article is published to it', async () => {
    const { accountId, websiteUuid } = await registeredWebsite('/legacy-publish');
    const legacy = await makeLegacy(accountId, websiteUuid);
    const created = await createArticleHandler(
      apiEvent('create-article', {
        accountId,
        ...multipartBody({
          keyword: 'sourdough',
          h2_count: '2',
          ai_model: 'gpt-3.5-turbo',
          language: 'en',
          website_uuid: websiteUuid,
        }),
      }),
    );
    expect(created.statusCode).toBe(202);
    expect(await drainQueue(resources.queueUrl, worker)).toBe(1);
    const articleUuid = body(created).article_uuid as string;
    expect([...site.posts.values()].filter((post) => post.article_uuid === articleUuid)).toHaveLength(1);
    await expectMigrated(accountId, websiteUuid, legacy.passwordCiphertext);
  });

  it('never overwrites credentials that changed while an old record was being migrated', async () => {
    const { accountId, websiteUuid } = await registeredWebsite('/legacy-race');
    const legacy = await makeLegacy(accountId, websiteUuid);
    const updatedMeanwhile = await makeLegacy(accountId, websiteUuid);
    expect(
      await deps
        .websiteStore()
        .replacePasswordCiphertext(
          accountId,
          websiteUuid,
          { passwordCiphertext: 'bm90IGEgcmVhbCBjaXBoZXJ0ZXh0', passwordContextVersion: 2 },
          legacy.passwordCiphertext,
        ),
    ).toBe(false);
    expect((await stored(accountId, websiteUuid)).passwordCiphertext).toBe(
      updatedMeanwhile.passwordCiphertext,
    );
  });
});
