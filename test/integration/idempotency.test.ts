/**
 * The `Idempotency-Key` header on article and website creation, through the handlers, against
 * DynamoDB Local (Powertools' DynamoDB persistence layer on the Idempotency table), moto SQS and
 * KMS and the fake WordPress plugin: concurrent copies, retries, reuse with another request,
 * keys per account, invalid keys, and errors that are not kept.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as listQueueHandler } from '../../functions/api/list-queued-articles';
import { handler as listWebsitesHandler } from '../../functions/api/list-websites';
import { createAccount } from '../../functions/core/accounts';
import { priceOf } from '../../functions/core/pricing';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import { lambdaContext } from '../../local/lambda-context';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { multipartBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;
let site: FakeWordPress;

beforeAll(async () => {
  site = await startFakeWordPress();
  resources = await provisionTestResources({ PUBLIC_BASE_URL: '' });
});

afterAll(async () => {
  await site.close();
});

beforeEach(async () => {
  site.answerAfter = undefined;
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

const articleFields = {
  keyword: 'espresso grinders',
  h2_count: '3',
  ai_model: 'gpt-3.5-turbo',
  language: 'en',
};
const PRICE = priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 3, needBold: false });
const PASSWORD = 'correct horse battery';

async function newAccount(credits = 100): Promise<string> {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Idempotency test', credits },
  );
  return account.accountId;
}

const withKey = (key: string | undefined): Record<string, string> =>
  key === undefined ? {} : { 'Idempotency-Key': key };

function createArticle(
  accountId: string,
  key: string | undefined,
  fields: Record<string, string> = articleFields,
) {
  return createArticleHandler(
    apiEvent('create-article', { accountId, ...multipartBody(fields), headers: withKey(key) }),
  );
}

function createWebsite(
  accountId: string,
  key: string | undefined,
  fields: Record<string, string>,
  context?: Context,
) {
  return createWebsiteHandler(
    apiEvent('create-website', { accountId, ...multipartBody(fields), headers: withKey(key) }),
    context,
  );
}

const body = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const credits = async (accountId: string) => (await deps.accountStore().get(accountId))?.credits;
const queuedUuids = async (accountId: string): Promise<string[]> =>
  body(await listQueueHandler(apiEvent('list-queued-articles', { accountId }))).data.map(
    (entry: { data: { uuid: string } }) => entry.data.uuid,
  );
const websiteUuids = async (accountId: string): Promise<string[]> =>
  body(await listWebsitesHandler(apiEvent('list-websites', { accountId }))).data.map(
    (website: { data: { uuid: string } }) => website.data.uuid,
  );

describe('POST /v1/articles/create with Idempotency-Key', () => {
  it('ten copies at the same moment: one article, one charge, ten identical answers', async () => {
    const accountId = await newAccount();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => createArticle(accountId, 'order-4711')),
    );

    const first = responses[0] as APIGatewayProxyResult;
    expect(first.statusCode).toBe(202);
    for (const response of responses) {
      expect(response.statusCode).toBe(202);
      expect(response.body).toBe(first.body);
    }
    expect(await queuedUuids(accountId)).toEqual([body(first).article_uuid]);
    expect(await credits(accountId)).toBe(100 - PRICE);
    expect(responses.filter((response) => response.headers?.['Idempotent-Replayed'] === 'true')).toHaveLength(
      9,
    );
  });

  it('a retry after the first completed returns the same article_uuid and 202, charging nothing more', async () => {
    const accountId = await newAccount();
    const first = await createArticle(accountId, 'retry-key');
    const retry = await createArticle(accountId, 'retry-key');

    expect(retry.statusCode).toBe(202);
    expect(retry.body).toBe(first.body);
    expect(retry.headers?.['Idempotent-Replayed']).toBe('true');
    expect(first.headers?.['Idempotent-Replayed']).toBeUndefined();
    expect(await queuedUuids(accountId)).toEqual([body(first).article_uuid]);
    expect(await credits(accountId)).toBe(100 - PRICE);
  });

  /**
   * A create whose idempotency record's final update fails, as if the invocation died right
   * after the reservation committed: the record is released and nothing is kept for the key.
   */
  async function createLosingTheAnswer(accountId: string, key: string): Promise<APIGatewayProxyResult> {
    const client = dynamoDocumentClient();
    const dropStoredAnswer = 'dropStoredAnswer';
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { TableName?: string };
        if (
          context.commandName === 'UpdateItemCommand' &&
          input.TableName === resources.tableNames.idempotency
        ) {
          throw new Error('Simulated crash before the answer was stored');
        }
        return next(args);
      },
      { step: 'initialize', name: dropStoredAnswer },
    );
    try {
      // An invocation with one second left: its in-progress record expires with it.
      return await createArticleHandler(
        apiEvent('create-article', { accountId, ...multipartBody(articleFields), headers: withKey(key) }),
        { ...lambdaContext('CreateArticle', 1), getRemainingTimeInMillis: () => 1_000 } as Context,
      );
    } finally {
      client.middlewareStack.remove(dropStoredAnswer);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    }
  }

  it('a retry after the first died between its reservation and storing its answer finds the same article', async () => {
    const accountId = await newAccount();
    const first = await createLosingTheAnswer(accountId, 'crash-key');
    const retry = await createArticle(accountId, 'crash-key');
    expect(retry.statusCode).toBe(202);
    const stored = (await queuedUuids(accountId)) as string[];
    expect(stored).toHaveLength(1);
    expect(body(retry).article_uuid).toBe(stored[0]);
    if (first.statusCode === 202) expect(body(first).article_uuid).toBe(stored[0]);
    expect(await credits(accountId)).toBe(100 - PRICE);
  });

  it('after the first died without storing its answer, the same key with a different request is still a 422', async () => {
    const accountId = await newAccount();
    await createLosingTheAnswer(accountId, 'crash-then-other');
    const other = await createArticle(accountId, 'crash-then-other', {
      ...articleFields,
      keyword: 'milk frothers',
    });
    expect(other.statusCode).toBe(422);
    expect(body(other).errors).toEqual({
      'Idempotency-Key': ['This Idempotency-Key was already used with a different request.'],
    });
    const stored = (await queuedUuids(accountId)) as string[];
    expect(stored).toHaveLength(1);
    expect(await credits(accountId)).toBe(100 - PRICE);
    // The request the key was first used with still gets its article.
    const same = await createArticle(accountId, 'crash-then-other');
    expect(same.statusCode).toBe(202);
    expect(body(same).article_uuid).toBe(stored[0]);
  });

  it('the same request written differently (encoding, spelling of booleans) is the same request', async () => {
    const accountId = await newAccount();
    const first = await createArticle(accountId, 'spelling', { ...articleFields, need_bold: '1' });
    const again = await createArticleHandler(
      apiEvent('create-article', {
        accountId,
        body: JSON.stringify({ ...articleFields, h2_count: 3, need_bold: true }),
        contentType: 'application/json',
        headers: withKey('spelling'),
      }),
    );
    expect(again.statusCode).toBe(202);
    expect(body(again).article_uuid).toBe(body(first).article_uuid);
  });

  it('the same key with a different request: 422 naming the header, nothing created or charged', async () => {
    const accountId = await newAccount();
    const first = await createArticle(accountId, 'reused');
    const other = await createArticle(accountId, 'reused', { ...articleFields, keyword: 'milk frothers' });

    expect(other.statusCode).toBe(422);
    expect(body(other)).toEqual({
      message: 'This Idempotency-Key was already used with a different request.',
      errors: { 'Idempotency-Key': ['This Idempotency-Key was already used with a different request.'] },
    });
    expect(await queuedUuids(accountId)).toEqual([body(first).article_uuid]);
    expect(await credits(accountId)).toBe(100 - PRICE);
  });

  it('copies with different requests sent at the same moment: one created and charged, every other copy a 422', async () => {
    const accountId = await newAccount();
    const keywords = ['alpha grinders', 'beta grinders', 'gamma grinders', 'delta grinders'];
    const responses = await Promise.all(
      keywords.map((keyword) => createArticle(accountId, 'raced', { ...articleFields, keyword })),
    );

    const created = responses.filter((response) => response.statusCode === 202);
    expect(created).toHaveLength(1);
    expect(responses.filter((response) => response.statusCode === 422)).toHaveLength(keywords.length - 1);
    expect(await queuedUuids(accountId)).toEqual([body(created[0] as APIGatewayProxyResult).article_uuid]);
    expect(await credits(accountId)).toBe(100 - PRICE);
  });

  it('keys are per account: the same key on another account creates and charges independently', async () => {
    const alice = await newAccount();
    const bob = await newAccount();
    const [forAlice, forBob] = await Promise.all([
      createArticle(alice, 'shared-key'),
      createArticle(bob, 'shared-key', { ...articleFields, keyword: 'milk frothers' }),
    ]);

    expect(forAlice.statusCode).toBe(202);
    expect(forBob.statusCode).toBe(202);
    expect(body(forBob).article_uuid).not.toBe(body(forAlice).article_uuid);
    expect(await queuedUuids(alice)).toEqual([body(forAlice).article_uuid]);
    expect(await queuedUuids(bob)).toEqual([body(forBob).article_uuid]);
    expect(await credits(alice)).toBe(100 - PRICE);
    expect(await credits(bob)).toBe(100 - PRICE);
  });

  it('without the header every request creates an article', async () => {
    const accountId = await newAccount();
    const [one, two] = [await createArticle(accountId, undefined), await createArticle(accountId, undefined)];
    expect(body(one).article_uuid).not.toBe(body(two).article_uuid);
    expect(await credits(accountId)).toBe(100 - 2 * PRICE);
  });

  it.each([
    ['empty', '', 'The Idempotency-Key header is empty.'],
    [
      'longer than 255 characters',
      'k'.repeat(256),
      'The Idempotency-Key header may not be longer than 255 characters.',
    ],
    // Sent as UTF-8, 'é' reaches Node as two Latin-1 characters: the key would not be what was sent.
    ['not ASCII', 'clé-1', 'The Idempotency-Key header must be printable ASCII text, such as a UUID.'],
    [
      'holding a control character',
      'key\u0001',
      'The Idempotency-Key header must be printable ASCII text, such as a UUID.',
    ],
  ])('a key that is %s: 422 on the header, nothing charged', async (_case, key, message) => {
    const accountId = await newAccount();
    const response = await createArticle(accountId, key);
    expect(response.statusCode).toBe(422);
    expect(body(response).errors).toEqual({ 'Idempotency-Key': [message] });
    expect(await queuedUuids(accountId)).toEqual([]);
    expect(await credits(accountId)).toBe(100);
  });

  it('a key of 255 characters is accepted', async () => {
    const accountId = await newAccount();
    expect((await createArticle(accountId, `${'k'.repeat(254)}~`)).statusCode).toBe(202);
  });

  it('a request refused by validation is not kept: the corrected request with the same key goes through', async () => {
    const accountId = await newAccount();
    const refused = await createArticle(accountId, 'fix-and-retry', { ...articleFields, h2_count: '11' });
    expect(refused.statusCode).toBe(422);
    expect(Object.keys(body(refused).errors)).toEqual(['h2_count']);

    const corrected = await createArticle(accountId, 'fix-and-retry');
    expect(corrected.statusCode).toBe(202);
    expect(await credits(accountId)).toBe(100 - PRICE);
  });
});

describe('POST /v1/websites/create with Idempotency-Key', () => {
  const fields = () => ({ url: site.url, login: 'inkpress', password: PASSWORD });

  it('ten copies at the same moment: one website, ten identical 201 answers', async () => {
    const accountId = await newAccount();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => createWebsite(accountId, 'register-blog', fields())),
    );

    const first = responses[0] as APIGatewayProxyResult;
    for (const response of responses) {
      expect(response.statusCode).toBe(201);
      // The same bytes, not only the same values: a stored body keeps the order of its keys.
      expect(response.body).toBe(first.body);
    }
    expect(await websiteUuids(accountId)).toEqual([body(first).data.uuid]);
  });

  it('a retry after the first completed returns the same website; another login with the key is a 422', async () => {
    const accountId = await newAccount();
    const first = await createWebsite(accountId, 'register-once', fields());
    const retry = await createWebsite(accountId, 'register-once', fields());
    // The same site written another way (upper-case scheme, trailing slash) is the same request.
    const spelled = await createWebsite(accountId, 'register-once', {
      ...fields(),
      url: `${site.url.replace('http://', 'HTTP://')}/`,
    });
    const other = await createWebsite(accountId, 'register-once', { ...fields(), login: 'someone-else' });

    expect(retry.statusCode).toBe(201);
    expect(retry.body).toBe(first.body);
    expect(spelled.statusCode).toBe(201);
    expect(spelled.body).toBe(first.body);
    expect(other.statusCode).toBe(422);
    expect(Object.keys(body(other).errors)).toEqual(['Idempotency-Key']);
    expect(await websiteUuids(accountId)).toEqual([body(first).data.uuid]);
  });

  it('keys are per account', async () => {
    const alice = await newAccount();
    const bob = await newAccount();
    const forAlice = await createWebsite(alice, 'same-key', fields());
    const forBob = await createWebsite(bob, 'same-key', fields());
    expect(forBob.statusCode).toBe(201);
    expect(body(forBob).data.uuid).not.toBe(body(forAlice).data.uuid);
    expect(await websiteUuids(bob)).toEqual([body(forBob).data.uuid]);
  });

  it('a registration the site refused is not kept: after the password is fixed the same key registers', async () => {
    const accountId = await newAccount();
    const refused = await createWebsite(accountId, 'wrong-then-right', { ...fields(), password: 'wrong' });
    expect(refused.statusCode).toBe(422);

    const fixed = await createWebsite(accountId, 'wrong-then-right', fields());
    expect(fixed.statusCode).toBe(201);
    expect(await websiteUuids(accountId)).toEqual([body(fixed).data.uuid]);
  });

  it('a copy whose wait ends while the first is still running: 409 with Retry-After, then the stored answer', async () => {
    const accountId = await newAccount();
    let answerSite: () => void = () => undefined;
    site.answerAfter = new Promise<void>((resolve) => {
      answerSite = resolve;
    });
    const arrivalsBefore = site.arrivals;
    const first = createWebsite(accountId, 'slow-site', fields());
    while (site.arrivals === arrivalsBefore) await new Promise((resolve) => setTimeout(resolve, 10));

    // This copy's invocation has 1.2 s left: it waits 0.2 s for the first, which is held by the site.
    const copy = await createWebsite(accountId, 'slow-site', fields(), lambdaContext('CreateWebsite', 1.2));
    expect(copy.statusCode).toBe(409);
    expect(copy.headers?.['Retry-After']).toBe('2');
    expect(body(copy)).toEqual({
      message:
        'A request with this Idempotency-Key is still being processed. Retry the same request shortly to get its response.',
    });

    answerSite();
    const firstResponse = await first;
    expect(firstResponse.statusCode).toBe(201);
    const retried = await createWebsite(accountId, 'slow-site', fields());
    expect(body(retried)).toEqual(body(firstResponse));
    expect(await websiteUuids(accountId)).toEqual([body(firstResponse).data.uuid]);
  });
});
