/**
 * The per-account rate limit, through the real handlers and the RateLimits table in DynamoDB
 * Local: a burst beyond the bucket gets 429 JSON with Retry-After, concurrent requests share one
 * bucket exactly, other accounts are unaffected; and the headers every response carries. The
 * refill is set so slow (one token per 20 s) that no assertion depends on timing.
 */

import { DynamoRateLimitStore } from '../../functions/adapters/dynamodb/rate-limit-store';
import { handler as listLanguagesHandler } from '../../functions/api/list-languages';
import { handler as listWebsitesHandler } from '../../functions/api/list-websites';
import { createAccount } from '../../functions/core/accounts';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import type { ProvisionedResources } from '../../local/provision';
import { coldStartHandler } from '../support/cold-start';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { provisionTestResources } from '../support/test-resources';

const BURST = 5;
let resources: ProvisionedResources;

beforeAll(async () => {
  resources = await provisionTestResources({
    INKPRESS_RATE_LIMIT_PER_SECOND: '0.05',
    INKPRESS_RATE_LIMIT_BURST: String(BURST),
  });
});

afterEach(() => {
  delete process.env.INKPRESS_HSTS;
});

async function newAccount() {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Rate limit', credits: 0 },
  );
  return account.accountId;
}

const languages = (accountId: string) => listLanguagesHandler(apiEvent('list-languages', { accountId }));

describe('per-account rate limit', () => {
  it('answers a burst beyond the bucket with 429 JSON and Retry-After; another account is unaffected', async () => {
    const busy = await newAccount();
    for (let request = 0; request < BURST; request++) {
      expect((await languages(busy)).statusCode).toBe(200);
    }
    // Any route counts against the same bucket.
    const refused = await listWebsitesHandler(apiEvent('list-websites', { accountId: busy }));
    expect(refused.statusCode).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({ message: 'Too many requests.' });
    const retryAfter = Number(refused.headers?.['Retry-After']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(20);
    expect(refused.headers).toMatchObject({
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    expect((await languages(busy)).statusCode).toBe(429);

    const other = await newAccount();
    expect((await languages(other)).statusCode).toBe(200);
  });

  it('lets exactly the burst through when requests arrive at the same moment', async () => {
    const accountId = await newAccount();
    const statuses = await Promise.all(Array.from({ length: 12 }, () => languages(accountId)));
    expect(statuses.filter((response) => response.statusCode === 200)).toHaveLength(BURST);
    expect(statuses.filter((response) => response.statusCode === 429)).toHaveLength(12 - BURST);
  });

  it('takes exactly one token per request when requests within the burst arrive together', async () => {
    const accountId = await newAccount();
    const together = await Promise.all(Array.from({ length: 3 }, () => languages(accountId)));
    expect(together.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    // Two tokens left of the five, not more, not fewer.
    expect((await languages(accountId)).statusCode).toBe(200);
    expect((await languages(accountId)).statusCode).toBe(200);
    expect((await languages(accountId)).statusCode).toBe(429);
  });

  it('refills at the configured rate (bucket store, clock given)', async () => {
    const store = new DynamoRateLimitStore(dynamoDocumentClient(), resources.tableNames.rateLimits);
    const policy = { ratePerSecond: 2, burst: 3 };
    const key = `clock-${Date.now()}`;
    const start = 1_000_000;
    for (let request = 0; request < 3; request++) {
      expect(await store.take(key, start, policy)).toEqual({ allowed: true });
    }
    expect(await store.take(key, start, policy)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // One token (500 ms) later: one request, then refused again.
    expect(await store.take(key, start + 500, policy)).toEqual({ allowed: true });
    expect(await store.take(key, start + 500, policy)).toMatchObject({ allowed: false });
    // After a long quiet period the bucket is full (burst), not more.
    const later = start + 60_000;
    for (let request = 0; request < 3; request++) {
      expect(await store.take(key, later, policy)).toEqual({ allowed: true });
    }
    expect(await store.take(key, later, policy)).toMatchObject({ allowed: false });
  });

  it('gives a token to a request whose clock is a little behind the one that reached the bucket first', async () => {
    const store = new DynamoRateLimitStore(dynamoDocumentClient(), resources.tableNames.rateLimits);
    const policy = { ratePerSecond: 2, burst: 3 };
    const key = `skew-${Date.now()}`;
    const start = 2_000_000;
    // The request that read its clock last reaches the empty bucket first.
    expect(await store.take(key, start + 200, policy)).toEqual({ allowed: true });
    expect(await store.take(key, start, policy)).toEqual({ allowed: true });
    expect(await store.take(key, start, policy)).toEqual({ allowed: true });
    // Still exactly the burst: the fourth is refused, whatever its clock within the moment.
    expect(await store.take(key, start, policy)).toMatchObject({ allowed: false });
    expect(await store.take(key, start + 200, policy)).toMatchObject({ allowed: false });
  });
});

describe('response headers', () => {
  it('sends nosniff and no-store on every answer, and HSTS only when deployed', async () => {
    const local = await listWebsitesHandler(apiEvent('list-websites', { accountId: await newAccount() }));
    expect(local.statusCode).toBe(200);
    expect(local.headers).toMatchObject({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
    expect(local.headers?.['Strict-Transport-Security']).toBeUndefined();

    process.env.INKPRESS_HSTS = 'true';
    const deployedHandler = coldStartHandler<typeof listWebsitesHandler>('functions/api/list-websites.ts');
    const deployed = await deployedHandler(apiEvent('list-websites', { accountId: await newAccount() }));
    expect(deployed.headers).toMatchObject({
      'X-Content-Type-Options': 'nosniff',
      'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
    });
    const unauthenticated = await deployedHandler(apiEvent('list-websites', { accountId: '' }));
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.headers).toMatchObject({ 'X-Content-Type-Options': 'nosniff' });
  });
});
