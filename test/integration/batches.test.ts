/**
 * Batches through the handlers on DynamoDB Local and moto: a CSV upload and a JSON body, a
 * 422 naming each bad row (or `partial=1`), one charge for the whole batch, the daily limit,
 * a replay under the same Idempotency-Key, a writer that dies half-way (finished by the sweeper
 * and by a retry, charged once), the calendar across a daylight-saving change, show and list,
 * and `batch.completed` once every item is generated.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { DynamoArticleSweeps } from '../../functions/adapters/dynamodb/article-sweeps';
import { DynamoBatchRepository } from '../../functions/adapters/dynamodb/batch-repository';
import { handler as createBatchHandler } from '../../functions/api/create-batch';
import { handler as createWebhookHandler } from '../../functions/api/create-webhook';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as listBatchesHandler } from '../../functions/api/list-batches';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { handler as showBatchHandler } from '../../functions/api/show-batch';
import { handler as showWebsiteHandler } from '../../functions/api/show-website';
import { handler as updateWebsiteHandler } from '../../functions/api/update-website';
import { createAccount } from '../../functions/core/accounts';
import { BATCH_WRITE_GRACE_MS } from '../../functions/core/articles/batch';
import { parseBatchRequest } from '../../functions/core/articles/batch-input';
import { createBatch } from '../../functions/core/articles/create-batch';
import { sweepBatches } from '../../functions/core/articles/sweep-batches';
import { priceOf } from '../../functions/core/pricing';
import type { Website } from '../../functions/core/websites/website';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import { handler as worker } from '../../functions/worker/generation-worker';
import { handler as dispatcher } from '../../functions/worker/webhook-dispatcher';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, fakeModelEnv, startFakeOpenAi } from '../support/fake-openai-server';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { drainQueue, receive } from '../support/generation-queue';
import { urlencodedBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;
let receiver: WebhookReceiver;
let wordpress: FakeWordPress;

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
  receiver = await startWebhookReceiver();
  wordpress = await startFakeWordPress();
  resources = await provisionTestResources({ ...fakeModelEnv(fakeOpenAi), PUBLIC_BASE_URL: '' });
});

afterAll(async () => {
  await Promise.all([fakeOpenAi.close(), receiver.close(), wordpress.close()]);
});

beforeEach(async () => {
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

const PRICE = priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 2, needBold: false });

async function newAccount(credits: number, dailyLimit = 1000) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Batch test', credits, dailyLimit },
  );
  return account.accountId;
}

async function newWebsite(accountId: string): Promise<string> {
  const uuid = crypto.randomUUID();
  const website: Website = {
    accountId,
    websiteUuid: uuid,
    url: `https://${uuid}.example.com`,
    login: 'inkpress',
    passwordCiphertext: 'not-used-here',
    loginIsUnauthorized: false,
    isUnreachable: false,
    totalCreditsUsed: 0,
    articlesCount: 0,
    categoriesCount: 0,
    createdAt: new Date().toISOString(),
  };
  await deps.websiteStore().create(website, `${uuid}.example.com`);
  return uuid;
}

const credits = async (accountId: string) => (await deps.accountStore().get(accountId))?.credits;
// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
const json = (response: APIGatewayProxyResult): any => JSON.parse(response.body);

/** A multipart upload of `csv` (as bytes: a BOM or bad bytes are sent as they are) with other parts. */
function csvUpload(csv: string | Buffer, fields: Record<string, string> | [string, string][] = {}) {
  const boundary = `----inkpress${Math.random().toString(16).slice(2)}`;
  const parts = (Array.isArray(fields) ? fields : Object.entries(fields)).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const body = Buffer.concat([
    Buffer.from(
      `${parts.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="keywords.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    Buffer.isBuffer(csv) ? csv : Buffer.from(csv, 'utf8'),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

const post = (
  accountId: string,
  upload: { body: Buffer | string; contentType: string },
  options: { query?: Record<string, string>; key?: string } = {},
) =>
  createBatchHandler(
    apiEvent('create-batch', {
      accountId,
      ...upload,
      ...(options.query ? { query: options.query } : {}),
      ...(options.key ? { headers: { 'Idempotency-Key': options.key } } : {}),
    }),
  );
const postJson = (accountId: string, body: unknown, options: { key?: string } = {}) =>
  post(accountId, { body: JSON.stringify(body), contentType: 'application/json' }, options);
const show = (accountId: string, uuid: string, page?: number) =>
  showBatchHandler(
    apiEvent('show-batch', {
      accountId,
      pathParameters: { batch_uuid: uuid },
      ...(page ? { query: { page: String(page) } } : {}),
    }),
  );

const HEADER = 'keyword,h2_count,ai_model,language';
const row = (keyword: string, h2 = '2') => `${keyword},${h2},gpt-3.5-turbo,en`;
const csvOf = (rows: string[]) => `${[HEADER, ...rows].join('\r\n')}\r\n`;

describe('POST /v1/articles/batch', () => {
  it('accepts a CSV (BOM, quoted commas and line breaks), charges every item in one step and queues them', async () => {
    const accountId = await newAccount(100);
    const csv = `\uFEFF${csvOf([row('"trail shoes, waterproof"'), row('"hiking\npoles"'), row('camp stoves')])}`;

    const response = await post(accountId, csvUpload(csv));

    expect(response.statusCode).toBe(202);
    const body = json(response);
    expect(body).toMatchObject({ items_count: 3, credits_reserved: 3 * PRICE, rejected: [] });
    expect(body.items.map((item: { row: number }) => item.row)).toEqual([2, 3, 4]);
    expect(body.items.every((item: { status: string }) => item.status === 'queued')).toBe(true);
    expect(await credits(accountId)).toBe(100 - 3 * PRICE);
    const article = await deps.articleStore().get(accountId, body.items[0].article_uuid);
    expect(article).toMatchObject({
      keyword: 'trail shoes, waterproof',
      state: 'queued',
      batchUuid: body.batch_uuid,
    });
    expect((await deps.articleStore().get(accountId, body.items[1].article_uuid))?.keyword).toBe(
      'hiking poles',
    );
    expect(await receive(resources.queueUrl, 10, 1)).toHaveLength(3);
  });

  it('refuses the whole batch with a 422 naming each bad row and field, charging nothing', async () => {
    const accountId = await newAccount(100);
    const csv = csvOf([
      row('good one'),
      row('bad h2', '11'),
      row('good two'),
      row('', '2'),
      'bad language,2,gpt-3.5-turbo,xx',
      row('good three'),
    ]);

    const response = await post(accountId, csvUpload(csv));

    expect(response.statusCode).toBe(422);
    const body = json(response);
    expect(body.rows.map((rejected: { row: number }) => rejected.row)).toEqual([3, 5, 6]);
    expect(body.errors).toMatchObject({
      'rows.3.h2_count': [expect.stringMatching(/greater than 10/)],
      'rows.5.keyword': [expect.any(String)],
      'rows.6.language': [expect.stringMatching(/not supported/)],
    });
    expect(body.message).toMatch(/rows 3, 5, 6/);
    expect(await credits(accountId)).toBe(100);
    expect(json(await listBatchesHandler(apiEvent('list-batches', { accountId }))).data).toEqual([]);
  });

  it('with partial=1 accepts the valid rows and lists the others', async () => {
    const accountId = await newAccount(100);
    const csv = csvOf([
      row('good one'),
      row('bad h2', '11'),
      row('good two'),
      row('', '2'),
      row('good three'),
    ]);

    const response = await post(accountId, csvUpload(csv, { partial: '1' }));

    expect(response.statusCode).toBe(202);
    const body = json(response);
    expect(body.items.map((item: { row: number }) => item.row)).toEqual([2, 4, 6]);
    expect(body.rejected.map((rejected: { row: number }) => rejected.row)).toEqual([3, 5]);
    expect(await credits(accountId)).toBe(100 - 3 * PRICE);
  });

  it('refuses each row with the wrong number of cells by its row, and with partial=1 accepts the others; a line of spaces is a blank row, numbered and skipped', async () => {
    const accountId = await newAccount(100);
    const csv = csvOf([
      row('k1'),
      'k2,2,gpt-3.5-turbo',
      '   ',
      row('k3', '99'),
      'k4,2,gpt-3.5-turbo,en,extra',
      row('k5'),
    ]);

    const refused = await post(accountId, csvUpload(csv));
    expect(refused.statusCode).toBe(422);
    expect(json(refused).rows).toEqual([
      { row: 3, errors: { cells: ['The row has 3 cells where the header has 4.'] } },
      { row: 5, errors: { h2_count: [expect.stringMatching(/greater than 10/)] } },
      { row: 6, errors: { cells: ['The row has 5 cells where the header has 4.'] } },
    ]);
    expect(await credits(accountId)).toBe(100);

    const partial = await post(accountId, csvUpload(csv, { partial: '1' }));
    expect(partial.statusCode).toBe(202);
    expect(json(partial).items.map((item: { row: number }) => item.row)).toEqual([2, 7]);
    expect(json(partial).rejected.map((rejected: { row: number }) => rejected.row)).toEqual([3, 5, 6]);
    expect(await credits(accountId)).toBe(100 - 2 * PRICE);
  });

  it('replays the first answer under the same Idempotency-Key and charges nothing more', async () => {
    const accountId = await newAccount(100);
    const items = ['one', 'two'].map((keyword) => ({
      keyword,
      h2_count: 2,
      ai_model: 'gpt-3.5-turbo',
      language: 'en',
    }));

    const first = await postJson(accountId, { items }, { key: 'batch-replay-1' });
    const second = await postJson(accountId, { items }, { key: 'batch-replay-1' });

    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.headers?.['Idempotent-Replayed']).toBe('true');
    expect(json(second)).toEqual(json(first));
    expect(await credits(accountId)).toBe(100 - 2 * PRICE);
    const other = await postJson(accountId, { items: items.slice(0, 1) }, { key: 'batch-replay-1' });
    expect(other.statusCode).toBe(422);
  });

  it('reserves only the slots the daily limit leaves; the rest wait for the next day, uncharged', async () => {
    const accountId = await newAccount(100, 2);
    const items = ['a', 'b', 'c'].map((keyword) => ({ keyword }));

    const response = await postJson(accountId, {
      items,
      defaults: { h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en' },
    });

    const body = json(response);
    expect(body.items.map((item: { status: string; row: number }) => [item.row, item.status])).toEqual([
      [0, 'queued'],
      [1, 'queued'],
      [2, 'daily_limit_reached'],
    ]);
    expect(await credits(accountId)).toBe(100 - 2 * PRICE);
  });

  it('short of both credits and daily slots, waits for credits first, as a single create does', async () => {
    const accountId = await newAccount(PRICE, 1);
    const item = { keyword: 'first', h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en' };
    expect(json(await postJson(accountId, [item])).items[0].status).toBe('queued');
    // No credits left and no slot left today.
    const response = await postJson(
      accountId,
      ['a', 'b'].map((keyword) => ({ keyword, h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en' })),
    );
    expect(json(response).items.map((item: { status: string }) => item.status)).toEqual([
      'not_enough_credits',
      'not_enough_credits',
    ]);
  });

  it('charges nothing and defers every item when the credits do not cover the batch', async () => {
    const accountId = await newAccount(2 * PRICE - 1);
    const response = await postJson(
      accountId,
      ['a', 'b'].map((keyword) => ({ keyword, h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en' })),
    );
    expect(json(response).items.map((item: { status: string }) => item.status)).toEqual([
      'not_enough_credits',
      'not_enough_credits',
    ]);
    expect(await credits(accountId)).toBe(2 * PRICE - 1);
  });

  it('spreads publish_at every day at 09:00 Europe/Paris across the spring change, keeping explicit ones', async () => {
    const accountId = await newAccount(100);
    const website = await newWebsite(accountId);
    const items = ['d1', 'd2', 'own', 'd3'].map((keyword) => ({
      keyword,
      ...(keyword === 'own' ? { publish_at: '2027-01-01T12:00:00Z' } : {}),
    }));

    const response = await postJson(accountId, {
      items,
      defaults: { h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en', website_uuid: website },
      schedule: { start: '2026-03-28', every: '1d', at: '09:00', timezone: 'Europe/Paris' },
    });

    expect(response.statusCode).toBe(202);
    const body = json(response);
    expect(body.items.map((item: { publish_at: string }) => item.publish_at)).toEqual([
      '2026-03-28 08:00:00',
      '2026-03-29 07:00:00',
      '2027-01-01 12:00:00',
      '2026-03-30 07:00:00',
    ]);
    const shown = json(await show(accountId, body.batch_uuid));
    expect(shown.data.items.map((item: { publish_at: string }) => item.publish_at)).toEqual(
      body.items.map((item: { publish_at: string }) => item.publish_at),
    );
    // Each article's own show carries its time too, queued as it is here.
    const articlesShown = await Promise.all(
      body.items.map(async (item: { article_uuid: string }) =>
        json(
          await showArticleHandler(
            apiEvent('show-article', { accountId, pathParameters: { article_uuid: item.article_uuid } }),
          ),
        ),
      ),
    );
    expect(articlesShown.map((article) => article.data.publish_at)).toEqual(
      body.items.map((item: { publish_at: string }) => item.publish_at),
    );
    expect(shown.data.schedule).toEqual({
      start: '2026-03-28',
      every: '1d',
      at: '09:00',
      timezone: 'Europe/Paris',
      weekdays: null,
    });
    expect((await deps.articleStore().get(accountId, body.items[1].article_uuid))?.publishAt).toBe(
      '2026-03-29T07:00:00.000Z',
    );
  });

  it('answers a multipart body cut off inside a part with a 400, changing nothing (the process survives)', async () => {
    const accountId = await newAccount(100);
    const head = `--XX\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n`;
    // Cut inside the file part: its stream's 'error' had no listener and ended the process.
    for (const body of [
      `${head}keyword\r\nabc`,
      `--XX\r\nContent-Disposition: form-data; name="partial"\r\n\r\n1`,
    ]) {
      const response = await post(accountId, {
        body: Buffer.from(body),
        contentType: 'multipart/form-data; boundary=XX',
      });
      expect(response.statusCode).toBe(400);
      expect(json(response).message).toMatch(/^The request body could not be parsed: Unexpected end of form/);
    }
    expect(await credits(accountId)).toBe(100);
  });

  it('refuses a JSON body nested deeper than 32 levels with a 400, as a single create does, with or without a key', async () => {
    const accountId = await newAccount(100);
    const item = { keyword: 'x', h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en' };
    const deepKeyword = JSON.stringify({ items: [item] }).replace(
      '"keyword":"x"',
      `"keyword":${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    );
    // With a key the request's hash overflowed the stack (a 500); without one the row was a 422.
    for (const key of ['deep-batch-1', undefined]) {
      const response = await post(
        accountId,
        { body: deepKeyword, contentType: 'application/json' },
        key ? { key } : {},
      );
      expect(response.statusCode).toBe(400);
      expect(json(response).message).toBe(
        'The request body could not be parsed: a JSON body may nest at most 32 levels deep.',
      );
    }
    const deepBody = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    expect((await post(accountId, { body: deepBody, contentType: 'application/json' })).statusCode).toBe(400);
    expect(await credits(accountId)).toBe(100);
  });

  it('checks repeated fields as a single create does: a JSON name or a form default given twice is a 422, a list default keeps every item', async () => {
    const accountId = await newAccount(100);
    const twice = await post(accountId, {
      body: '[{"keyword":"dupkey","h2_count":2,"ai_model":"gpt-3.5-turbo","language":"en","h2_count":9}]',
      contentType: 'application/json',
    });
    expect(twice.statusCode).toBe(422);
    expect(json(twice).rows).toEqual([
      { row: 0, errors: { h2_count: ['The h2_count field appears more than once.'] } },
    ]);
    const csv = 'keyword,ai_model,language\r\nbread,gpt-3.5-turbo,en\r\n';
    const formTwice = await post(accountId, csvUpload(csv, { h2_count: '2', 'h2_count[]': '3' }));
    expect(formTwice.statusCode).toBe(422);
    expect(json(formTwice).errors).toEqual({
      'rows.2.h2_count': ['The h2_count must be one whole number, given once.'],
    });
    expect(await credits(accountId)).toBe(100);

    const listed = await post(
      accountId,
      csvUpload(csv, {
        h2_count: '2',
        sources: 'https://example.org/a',
        'sources[]': 'https://example.org/b',
      }),
    );
    expect(listed.statusCode).toBe(202);
    const article = await deps.articleStore().get(accountId, json(listed).items[0].article_uuid);
    expect(article?.sources).toEqual(['https://example.org/a', 'https://example.org/b']);
  });

  it('refuses unknown defaults and schedule fields by name, and takes schedule[weekdays][] as the list', async () => {
    const accountId = await newAccount(100);
    const website = await newWebsite(accountId);
    const csv = csvOf([row('monday topic'), row('wednesday topic')]);
    const schedule: [string, string][] = [
      ['schedule[start]', '2026-03-30'],
      ['schedule[every]', '1d'],
      ['schedule[at]', '09:00'],
      ['schedule[timezone]', 'UTC'],
    ];
    const typo = await post(accountId, csvUpload(csv, [['websit_uuid', website], ...schedule]));
    expect(typo.statusCode).toBe(422);
    expect(Object.keys(json(typo).errors)).toEqual(['websit_uuid']);
    const unknownKey = await post(
      accountId,
      csvUpload(csv, [['website_uuid', website], ...schedule, ['schedule[foo]', 'x']]),
    );
    expect(unknownKey.statusCode).toBe(422);
    expect(json(unknownKey).errors).toEqual({
      'schedule.foo': [
        'The schedule has no field foo: its fields are start, every, at, timezone and weekdays.',
      ],
    });
    const jsonTypo = await postJson(accountId, {
      items: [{ keyword: 'x' }],
      defaults: { h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en', websit_uuid: website },
    });
    expect(Object.keys(json(jsonTypo).errors)).toEqual(['defaults.websit_uuid']);
    expect(await credits(accountId)).toBe(100);

    const listed = await post(
      accountId,
      csvUpload(csv, [
        ['website_uuid', website],
        ...schedule,
        ['schedule[weekdays][]', 'mon'],
        ['schedule[weekdays][]', 'wed'],
      ]),
    );
    expect(listed.statusCode).toBe(202);
    expect(json(listed).schedule.weekdays).toEqual(['mon', 'wed']);
    expect(json(listed).items.map((item: { publish_at: string }) => item.publish_at)).toEqual([
      '2026-03-30 09:00:00',
      '2026-04-01 09:00:00',
    ]);
  });

  it('refuses a schedule without a time zone, and rows without a website, before any charge', async () => {
    const accountId = await newAccount(100);
    const website = await newWebsite(accountId);
    const item = { keyword: 'x', h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en' };
    const noZone = await postJson(accountId, {
      items: [{ ...item, website_uuid: website }],
      schedule: { start: '2026-03-28', every: '1d', at: '09:00' },
    });
    expect(noZone.statusCode).toBe(422);
    expect(json(noZone).errors['schedule.timezone']).toEqual([expect.stringMatching(/IANA/)]);
    const noWebsite = await postJson(accountId, {
      items: [item],
      schedule: { start: '2026-03-28', every: '1d', at: '09:00', timezone: 'Europe/Paris' },
    });
    expect(json(noWebsite).rows).toEqual([{ row: 0, errors: { website_uuid: [expect.any(String)] } }]);
    expect(await credits(accountId)).toBe(100);
  });
});

describe("a schedule in the website's time zone", () => {
  const SITE_PASSWORD = 'correct horse battery';
  const schedule = { start: '2026-03-28', every: '1d', at: '09:00' };
  const item = (keyword: string, website: string) => ({
    keyword,
    h2_count: 2,
    ai_model: 'gpt-3.5-turbo',
    language: 'en',
    website_uuid: website,
  });

  async function registerSite(accountId: string, path: string): Promise<string> {
    const response = await createWebsiteHandler(
      apiEvent('create-website', {
        accountId,
        ...urlencodedBody({ url: `${wordpress.url}${path}`, login: 'inkpress', password: SITE_PASSWORD }),
      }),
    );
    expect(response.statusCode).toBe(201);
    return json(response).data.uuid;
  }
  const showWebsite = async (accountId: string, uuid: string) =>
    json(
      await showWebsiteHandler(
        apiEvent('show-website', { accountId, pathParameters: { website_uuid: uuid } }),
      ),
    ).data;

  afterEach(() => {
    wordpress.timezone = undefined;
  });

  it('a site reporting Europe/Paris gets 09:00 Paris time across the spring change, without a timezone sent', async () => {
    const accountId = await newAccount(100);
    wordpress.timezone = 'Europe/Paris';
    const website = await registerSite(accountId, '/paris');
    expect((await showWebsite(accountId, website)).timezone).toBe('Europe/Paris');

    const response = await postJson(accountId, {
      items: ['d1', 'd2', 'd3'].map((keyword) => item(keyword, website)),
      schedule,
    });

    expect(response.statusCode).toBe(202);
    const body = json(response);
    expect(body.items.map((accepted: { publish_at: string }) => accepted.publish_at)).toEqual([
      '2026-03-28 08:00:00',
      '2026-03-29 07:00:00',
      '2026-03-30 07:00:00',
    ]);
    expect(body.schedule).toEqual({ ...schedule, timezone: 'Europe/Paris', weekdays: null });
    expect(json(await show(accountId, body.batch_uuid)).data.schedule.timezone).toBe('Europe/Paris');
  });

  it("ignores a hostile zone from the site: the website's zone is unknown and the schedule must name one", async () => {
    const accountId = await newAccount(100);
    wordpress.timezone = 'Europe/Paris';
    const website = await registerSite(accountId, '/hostile');
    // The site now sends something that is no time zone; the next read of its status (an update) drops the zone.
    wordpress.timezone = '<img src=x onerror=alert(1)>';
    const updated = await updateWebsiteHandler(
      apiEvent('update-website', {
        accountId,
        pathParameters: { website_uuid: website },
        ...urlencodedBody({ login: 'inkpress', password: SITE_PASSWORD }),
      }),
    );
    expect(updated.statusCode).toBe(200);
    expect(json(updated).data.timezone).toBeNull();
    expect((await showWebsite(accountId, website)).timezone).toBeNull();

    const refused = await postJson(accountId, { items: [item('x', website)], schedule });
    expect(refused.statusCode).toBe(422);
    expect(json(refused).errors['schedule.timezone']).toEqual([
      expect.stringMatching(/has not reported its time zone/),
    ]);
    expect(await credits(accountId)).toBe(100);

    // An object where a string belongs: ignored too, and the login still works.
    wordpress.timezone = { name: 'Europe/Paris' };
    expect((await showWebsite(accountId, await registerSite(accountId, '/object'))).timezone).toBeNull();
  });
});

describe("a batch's messages recorded sent", () => {
  const sweepAtOf = async (accountId: string, articleUuid: string) =>
    (
      await dynamoDocumentClient().send(
        new GetCommand({ TableName: resources.tableNames.articles, Key: { accountId, articleUuid } }),
      )
    ).Item?.sweepAt as string | undefined;

  it('records every sent item, leaving an item a worker already took to it', async () => {
    const accountId = await newAccount(1000);
    const response = await postJson(accountId, {
      items: Array.from({ length: 30 }, (_, index) => ({
        keyword: `sent item ${index}`,
        h2_count: 2,
        ai_model: 'gpt-3.5-turbo',
        language: 'en',
      })),
    });
    expect(response.statusCode).toBe(202);
    const uuids: string[] = json(response).items.map((item: { article_uuid: string }) => item.article_uuid);

    // Sent and recorded: the sweeper looks again only after the queue's retention (14 days).
    for (const uuid of uuids) {
      expect(Date.parse((await sweepAtOf(accountId, uuid)) ?? '')).toBeGreaterThan(
        Date.now() + 14 * 24 * 3600_000,
      );
    }

    // A worker takes one; recording them all again leaves its sweep time (its lease's) alone.
    const now = new Date().toISOString();
    const leaseUntil = new Date(Date.now() + 60_000).toISOString();
    const taken = uuids[3] as string;
    await deps.articleStore().takeLease({ accountId, articleUuid: taken }, 'lease-1', now, leaseUntil, 4);
    const recheckAt = '2031-01-01T00:00:00.000Z';
    await new DynamoArticleSweeps(dynamoDocumentClient(), resources.tableNames).markSentMany(
      uuids.map((articleUuid) => ({ accountId, articleUuid })),
      recheckAt,
    );

    expect(await sweepAtOf(accountId, taken)).toBe(leaseUntil);
    for (const uuid of uuids.filter((uuid) => uuid !== taken)) {
      expect(await sweepAtOf(accountId, uuid)).toBe(recheckAt);
    }
  });
});

describe('a writer that dies half-way', () => {
  /**
   * A client whose article puts fail after `allowed` of them (the process died). Calls it sent
   * before are in `inFlight`: the writer's error comes as soon as one call fails, while the
   * others (up to 4 side by side) may still be reaching DynamoDB.
   */
  function dyingClient(allowed: number, inFlight: Promise<unknown>[]): DynamoDBDocumentClient {
    const real = dynamoDocumentClient();
    let puts = 0;
    let batchWrites = 0;
    return new Proxy(real, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver);
        return (command: unknown) => {
          if (command instanceof PutCommand && command.input.TableName === resources.tableNames.articles) {
            puts++;
            if (puts > allowed) return Promise.reject(new Error('the writer died'));
          }
          // The first writer's article writes (25 a call): it dies at the second call.
          if (
            command instanceof BatchWriteCommand &&
            resources.tableNames.articles in (command.input.RequestItems ?? {}) &&
            ++batchWrites > 1
          ) {
            return Promise.reject(new Error('the writer died'));
          }
          const sent = target.send(command as never);
          inFlight.push(sent);
          return sent;
        };
      },
    }) as DynamoDBDocumentClient;
  }

  async function halfWrittenBatch(
    accountId: string,
    count: number,
    key?: { batchUuid: string; requestHash: string },
  ) {
    const inFlight: Promise<unknown>[] = [];
    const dying = new DynamoBatchRepository(dyingClient(3, inFlight), resources.tableNames);
    const request = parseBatchRequest({
      rows: Array.from({ length: count }, (_, index) => ({
        row: index,
        fields: { keyword: `item ${index}`, h2_count: '2', ai_model: 'gpt-3.5-turbo', language: 'en' },
      })),
    });
    await expect(
      createBatch(
        { ...deps.createArticleDeps(), profiles: deps.siteProfileStore(), batches: dying },
        accountId,
        request,
        key,
      ),
    ).rejects.toThrow('the writer died');
    // What the writer sent before it died lands (or not) before the test looks.
    await Promise.allSettled(inFlight);
    return request;
  }

  it('is finished by the sweeper after the grace: every article written, charged once', async () => {
    const accountId = await newAccount(300);
    await halfWrittenBatch(accountId, 30);
    expect(await credits(accountId)).toBe(300 - 30 * PRICE);
    const store = new DynamoBatchRepository(dynamoDocumentClient(), resources.tableNames);
    const [batch] = (await store.list(accountId, 1, 20)).items;
    if (!batch) throw new Error('the batch was not stored');
    expect((await store.items(batch)).filter(Boolean)).toHaveLength(25);

    const later = new Date(Date.now() + BATCH_WRITE_GRACE_MS + 1000);
    await sweepBatches({ batches: store, clock: () => later });

    const items = await store.items(batch);
    expect(items.every((item) => item?.state === 'queued')).toBe(true);
    expect(items).toHaveLength(30);
    expect((await store.get(accountId, batch.batchUuid))?.written).toBe(true);
    expect(await credits(accountId)).toBe(300 - 30 * PRICE);
  });

  it('is finished by a retry under the same key, which charges nothing more', async () => {
    const accountId = await newAccount(300);
    const key = { batchUuid: crypto.randomUUID(), requestHash: 'same-request' };
    const request = await halfWrittenBatch(accountId, 30, key);

    const retried = await createBatch(
      {
        ...deps.createArticleDeps(),
        profiles: deps.siteProfileStore(),
        batches: new DynamoBatchRepository(dynamoDocumentClient(), resources.tableNames),
      },
      accountId,
      request,
      key,
    );

    expect(retried.created).toBe(false);
    const store = new DynamoBatchRepository(dynamoDocumentClient(), resources.tableNames);
    expect((await store.items(retried.batch)).every((item) => item?.state === 'queued')).toBe(true);
    expect((await store.items(retried.batch)).length).toBe(30);
    expect(await credits(accountId)).toBe(300 - 30 * PRICE);
  });
});

describe('show, list and completion', () => {
  it('shows counts per status and pages through the items; batch.completed once every item is generated', async () => {
    const accountId = await newAccount(200);
    const hook = await createWebhookHandler(
      apiEvent('create-webhook', {
        accountId,
        body: JSON.stringify({ url: `${receiver.url}/batches`, events: ['batch.completed'] }),
        contentType: 'application/json',
      }),
    );
    expect(hook.statusCode).toBe(201);
    const items = Array.from({ length: 23 }, (_, index) => ({ keyword: `topic ${index}` }));
    const created = json(
      await postJson(accountId, {
        items,
        defaults: { h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en' },
      }),
    );

    const first = json(await show(accountId, created.batch_uuid));
    expect(first.data).toMatchObject({ uuid: created.batch_uuid, status: 'in_progress', items_count: 23 });
    expect(first.data.counts).toMatchObject({ queued: 23, generated: 0 });
    expect(first.data.items).toHaveLength(20);
    expect(first.meta).toMatchObject({ current_page: 1, total: 23, last_page: 2 });
    const second = json(await show(accountId, created.batch_uuid, 2));
    expect(second.data.items.map((item: { row: number }) => item.row)).toEqual([20, 21, 22]);
    const listed = json(await listBatchesHandler(apiEvent('list-batches', { accountId })));
    expect(listed.data.map((batch: { uuid: string }) => batch.uuid)).toEqual([created.batch_uuid]);

    await drainQueue(resources.queueUrl, worker);
    const generated = json(await show(accountId, created.batch_uuid));
    expect(generated.data.counts).toMatchObject({ queued: 0, generated: 23 });

    const store = deps.batchesWithEvents();
    const later = new Date(Date.now() + 5 * 60_000);
    expect(await sweepBatches({ batches: store, clock: () => later })).toMatchObject({ completed: 1 });
    const completed = json(await show(accountId, created.batch_uuid));
    expect(completed.data.status).toBe('completed');
    expect(completed.data.completed_at).toEqual(expect.any(String));
    // Looked at once: nothing due any more.
    expect(await sweepBatches({ batches: store, clock: () => later })).toMatchObject({ completed: 0 });
    await drainQueue(resources.webhookQueueUrl, dispatcher);
    const delivered = receiver.requestsTo('/batches', 'batch.completed');
    expect(delivered).toHaveLength(1);
    const event = JSON.parse(delivered[0]?.body ?? '{}');
    expect(event).toMatchObject({
      type: 'batch.completed',
      data: { uuid: created.batch_uuid, status: 'completed', items_count: 23, counts: { generated: 23 } },
    });
  });

  it('answers 404 for a batch of another account', async () => {
    const owner = await newAccount(100);
    const created = json(
      await postJson(owner, [{ keyword: 'mine', h2_count: 2, ai_model: 'gpt-3.5-turbo', language: 'en' }]),
    );
    const stranger = await newAccount(100);
    expect((await show(stranger, created.batch_uuid)).statusCode).toBe(404);
  });
});
