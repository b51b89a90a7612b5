/**
 * Articles end to end through the handlers: create (multipart, urlencoded, JSON), the queue,
 * the worker against a fake OpenAI server via the real openai client, list and show; credits
 * and the daily limit; redelivery, crashes and failures. Real DynamoDB Local and moto SQS.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as listArticlesHandler } from '../../functions/api/list-articles';
import { handler as listQueueHandler } from '../../functions/api/list-queued-articles';
import { handler as showArticleHandler } from '../../functions/api/show-article';
import { addCredits, createAccount } from '../../functions/core/accounts';
import { createArticle } from '../../functions/core/articles/create-article';
import { retryDeferredReservations } from '../../functions/core/articles/sweep-articles';
import { priceOf } from '../../functions/core/pricing';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import { sqsClient } from '../../functions/shared/aws/sqs';
import { handler as worker } from '../../functions/worker/generation-worker';
import { handler as sweeper } from '../../functions/worker/sweeper';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, fakeModelEnv, startFakeOpenAi } from '../support/fake-openai-server';
import { drainQueue, lambdaContext, receive, sqsEventOf } from '../support/generation-queue';
import { multipartBody, urlencodedBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
  resources = await provisionTestResources({
    ...fakeModelEnv(fakeOpenAi),
    PUBLIC_BASE_URL: '',
  });
});

afterAll(async () => {
  await fakeOpenAi.close();
});

beforeEach(async () => {
  fakeOpenAi.behaviour = { latencyMs: 0 };
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

async function newAccount(credits: number, dailyLimit = 1000) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Test', credits, dailyLimit },
  );
  return account.accountId;
}

function json(response: APIGatewayProxyResult) {
  return JSON.parse(response.body);
}

async function create(
  accountId: string,
  fields: Record<string, string>,
  encoding: 'multipart' | 'urlencoded' | 'json' = 'multipart',
) {
  const body =
    encoding === 'multipart'
      ? multipartBody(fields)
      : encoding === 'urlencoded'
        ? urlencodedBody(fields)
        : { body: JSON.stringify(fields), contentType: 'application/json' };
  return createArticleHandler(apiEvent('create-article', { accountId, ...body }));
}

const show = (accountId: string, uuid: string) =>
  showArticleHandler(apiEvent('show-article', { accountId, pathParameters: { article_uuid: uuid } }));
const list = (accountId: string, page?: number) =>
  listArticlesHandler(
    apiEvent('list-articles', { accountId, ...(page ? { query: { page: String(page) } } : {}) }),
  );
const queue = (accountId: string) => listQueueHandler(apiEvent('list-queued-articles', { accountId }));
const credits = async (accountId: string) => (await deps.accountStore().get(accountId))?.credits;
const generateAll = () => drainQueue(resources.queueUrl, worker);

const validFields = {
  keyword: 'trail running shoes',
  h2_count: '3',
  ai_model: 'gpt-3.5-turbo',
  language: 'en',
};
const WIRE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('create, queue, generate, list, show', () => {
  it('takes a multipart request, queues the article, generates it with exactly h2_count H2s', async () => {
    const accountId = await newAccount(100);
    const response = await create(accountId, { ...validFields, need_bold: '1', title: 'Best trail shoes' });
    expect(response.statusCode).toBe(202);
    const created = json(response);
    expect(created.article_url).toBe(`https://api.example.com/prod/v1/articles/${created.article_uuid}/show`);
    expect(created.info).toContain(created.article_url);

    const queued = json(await queue(accountId));
    expect(queued.data).toHaveLength(1);
    expect(queued.data[0].status).toBe('pending');
    expect(queued.data[0].data).toEqual({
      uuid: created.article_uuid,
      keyword: 'trail running shoes',
      title: 'Best trail shoes',
      language: 'en',
      slug: null,
      status: 0,
      h2_count: 3,
      need_bold: 1,
      estimated_credits: priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 3, needBold: true }),
      not_enough_credits: 0,
      generation_error: 0,
      daily_limit_reached: 0,
      start_generation_at: expect.stringMatching(WIRE_TIME),
      publish_at: null,
      faq_count: 0,
      tags: [],
      auto_tags: 0,
      meta_description: null,
      sources: [],
      research: 'none',
      require_sources: 0,
      outline_review: 0,
      outline: null,
      featured_image: 'none',
      inline_images: 0,
      website: null,
      category: null,
      publication: null,
    });
    expect(json(await show(accountId, created.article_uuid)).status).toBe('in_progress');

    expect(await generateAll()).toBe(1);

    expect(json(await queue(accountId)).data).toHaveLength(0);
    const listed = json(await list(accountId));
    expect(listed.data).toHaveLength(1);
    const article = listed.data[0];
    expect(article.status).toBe('generated');
    expect(article.data).toEqual({
      uuid: created.article_uuid,
      title: 'Best trail shoes',
      content: expect.any(String),
      language: 'en',
      slug: null,
      status: 0,
      cms_id: null,
      cms_permalink: null,
      credits_used: 5,
      ai_model: 'gpt-3.5-turbo',
      total_words: expect.any(Number),
      created_at: expect.stringMatching(WIRE_TIME),
      published_at: null,
      publish_at: null,
      meta_description: expect.stringContaining('trail running shoes'),
      excerpt: 'Learn trail running shoes the easy way. Practical tips inside.',
      featured_image: null,
      images: [],
      focus_keyword: 'trail running shoes',
      faq: [],
      tags: [],
      internal_links: [],
      quality_warnings: ['keyword_missing_in_title'],
      sources: [],
      // The fake model's link to https://example.com/ in each of the 5 parts: no fetched source.
      external_links_removed: 5,
      website: null,
      category: null,
      publication: null,
    });
    const content: string = article.data.content;
    expect(content.match(/<h2>/g)).toHaveLength(3);
    expect(content).toContain('<strong>key phrase</strong>');
    expect(content).not.toMatch(/<script|javascript:/);
    expect(content).not.toContain('example.com');
    expect(content).toContain(' good link.</p>');
    expect(article.data.total_words).toBeGreaterThan(20);
    expect(json(await show(accountId, created.article_uuid))).toEqual(article);
    expect(await credits(accountId)).toBe(95);
  });

  it('accepts urlencoded and JSON bodies, generates a title when none is given, and drops bold when not asked', async () => {
    const accountId = await newAccount(100);
    const fromForm = json(await create(accountId, { ...validFields, h2_count: '1' }, 'urlencoded'));
    const fromJson = json(await create(accountId, { ...validFields, h2_count: '2', language: 'DE' }, 'json'));
    await generateAll();
    const first = json(await show(accountId, fromForm.article_uuid));
    expect(first.data.title).toBe('Fake guide to trail running shoes');
    expect(first.data.content).not.toContain('<strong>');
    const second = json(await show(accountId, fromJson.article_uuid));
    expect(second.data.language).toBe('de');
    expect(second.data.content.match(/<h2>/g)).toHaveLength(2);
    const outlineRequest = fakeOpenAi.requests.find((request) =>
      JSON.stringify(request).includes('German (language code de)'),
    );
    expect(outlineRequest).toBeDefined();
  });

  it('keeps UTF-8 text intact through a multipart body', async () => {
    const accountId = await newAccount(100);
    const created = json(
      await create(accountId, {
        ...validFields,
        keyword: 'crème brûlée, 東京',
        title: 'Crème brûlée à Tōkyō',
      }),
    );
    const queued = json(await show(accountId, created.article_uuid));
    expect(queued.data.keyword).toBe('crème brûlée, 東京');
    expect(queued.data.title).toBe('Crème brûlée à Tōkyō');
  });

  it("answers 404 for an unknown, malformed or another account's article", async () => {
    const owner = await newAccount(100);
    const other = await newAccount(100);
    const created = json(await create(owner, validFields));
    for (const [accountId, uuid] of [
      [other, created.article_uuid],
      [owner, '7f1c7a3e-9d52-4c1e-8d8a-1f5e2b3c4d5e'],
      [owner, 'not-a-uuid'],
    ]) {
      const response = await show(accountId as string, uuid as string);
      expect(response.statusCode).toBe(404);
      expect(json(response)).toEqual({ message: 'Article not found.' });
    }
    expect(json(await queue(other)).data).toHaveLength(0);
  });
});

describe('queue pagination', () => {
  it('gives every page of the queue the same envelope, with the total', async () => {
    const accountId = await newAccount(0);
    for (let i = 0; i < 22; i++) await create(accountId, { ...validFields, h2_count: '1' }, 'json');
    const base = 'https://api.example.com/prod/v1/articles/queue';
    const first = json(await listQueueHandler(apiEvent('list-queued-articles', { accountId })));
    const second = json(
      await listQueueHandler(apiEvent('list-queued-articles', { accountId, query: { page: '2' } })),
    );
    expect(first.data).toHaveLength(20);
    expect(second.data).toHaveLength(2);
    for (const page of [first, second]) {
      expect(page.links.last).toBe(`${base}?page=2`);
      expect(page.meta).toMatchObject({ last_page: 2, total: 22, per_page: 20 });
    }
    expect(first.links.next).toBe(`${base}?page=2`);
    expect(second.meta).toMatchObject({ from: 21, to: 22 });
  });
});

describe('generation options and quality gates', () => {
  const withOptions = {
    ...validFields,
    keyword: 'espresso grinders, burr',
    faq_count: '3',
    tags: 'Coffee, <b>Espresso</b>, coffee ,Home barista',
    auto_tags: '1',
  };

  it('prices the FAQ, writes the meta fields, the FAQ section and the tags, and shows them', async () => {
    const accountId = await newAccount(100);
    const created = json(await create(accountId, withOptions));
    const queued = json(await show(accountId, created.article_uuid)).data;
    expect(queued).toMatchObject({
      faq_count: 3,
      tags: ['Coffee', 'Espresso', 'Home barista'],
      auto_tags: 1,
      meta_description: null,
      estimated_credits: priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 3, needBold: false, faqCount: 3 }),
    });
    expect(queued.estimated_credits).toBe(1 + 3 + 1);
    await generateAll();
    const { data } = json(await show(accountId, created.article_uuid));
    expect(data.focus_keyword).toBe('espresso grinders');
    expect(data.meta_description).toContain('espresso grinders');
    expect(data.meta_description.length).toBeGreaterThanOrEqual(120);
    expect(data.meta_description.length).toBeLessThanOrEqual(160);
    expect(data.excerpt).toBe('Learn espresso grinders the easy way. Practical tips inside.');
    expect(data.faq).toEqual(
      [1, 2, 3].map((n) => ({
        question: `Fake question ${n} about espresso grinders?`,
        answer: `Fake answer ${n} about espresso grinders.`,
      })),
    );
    expect(data.tags).toEqual([
      'Coffee',
      'Espresso',
      'Home barista',
      'Fake tag',
      'Second tag',
      'espresso grinders',
    ]);
    expect(data.quality_warnings).toEqual([]);
    expect(data.content.match(/<h2>/g)).toHaveLength(4);
    expect(data.content).toContain(
      '<h2>Frequently asked questions</h2>\n<h3>Fake question 1 about espresso grinders?</h3>',
    );
    expect(data.credits_used).toBe(5);
    const metaCall = fakeOpenAi.requests.find((request) =>
      JSON.stringify(request).includes('exactly 3 questions'),
    );
    expect(metaCall).toBeDefined();
  });

  it('keeps the given meta description and charges nothing for tags', async () => {
    const accountId = await newAccount(100);
    const created = json(
      await create(accountId, { ...validFields, tags: 'one', meta_description: 'My <em>own</em> words.' }),
    );
    expect(json(await show(accountId, created.article_uuid)).data).toMatchObject({
      meta_description: 'My own words.',
      estimated_credits: priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 3, needBold: false }),
    });
    await generateAll();
    const { data } = json(await show(accountId, created.article_uuid));
    expect(data.meta_description).toBe('My own words.');
    expect(data.tags).toEqual(['one']);
    expect(data.faq).toEqual([]);
    expect(data.quality_warnings).toEqual([
      'keyword_missing_in_meta_description',
      'meta_description_too_short',
    ]);
  });

  it.each([
    [
      'always',
      [
        'keyword_missing_in_title',
        'keyword_missing_in_h2',
        'keyword_missing_in_first_paragraph',
        'keyword_missing_in_meta_description',
        'meta_description_too_short',
      ],
    ],
    ['until-feedback', []],
  ] as const)(
    'with a model that writes markdown and forgets the keyword (%s): no markdown survives, misses are regenerated once',
    async (sloppy, warnings) => {
      fakeOpenAi.behaviour = { latencyMs: 0, sloppy };
      const accountId = await newAccount(100);
      const created = json(await create(accountId, withOptions));
      const before = fakeOpenAi.requests.length;
      await generateAll();
      const { data } = json(await show(accountId, created.article_uuid));
      expect(data.quality_warnings).toEqual(warnings);
      const content: string = data.content;
      expect(content).not.toMatch(/\*\*|__|```|(^|>)\s*#|(^|>)\s*[-*] /m);
      expect(content.match(/<h2>/g)).toHaveLength(4);
      expect(content.match(/<h3>(Fake )?question \d/gi)).toHaveLength(3);
      expect(data.title).not.toMatch(/[#*]/);
      expect(
        data.faq.every(
          (item: { question: string; answer: string }) => !/[*#]|^- /.test(item.question + item.answer),
        ),
      ).toBe(true);
      // outline, intro, 3 sections, conclusion, meta; then one more outline, intro and meta
      expect(fakeOpenAi.requests.length - before).toBe(7 + 3);
      if (sloppy === 'until-feedback') {
        expect(data.title).toContain('espresso grinders');
        expect(content).toMatch(/^<p>Fake paragraph about espresso grinders/);
      }
    },
  );
});

describe('validation', () => {
  const cases: [string, Record<string, string | undefined>, string][] = [
    ['keyword missing', { keyword: undefined }, 'keyword'],
    ['keyword blank', { keyword: '   ' }, 'keyword'],
    ['keyword only markup', { keyword: '<script>alert(1)</script>' }, 'keyword'],
    ['more than 5 keywords', { keyword: 'a,b,c,d,e,f' }, 'keyword'],
    ['an empty keyword', { keyword: 'a,,b' }, 'keyword'],
    ['h2_count missing', { h2_count: undefined }, 'h2_count'],
    ['h2_count 0', { h2_count: '0' }, 'h2_count'],
    ['h2_count 11', { h2_count: '11' }, 'h2_count'],
    ['h2_count not a whole number', { h2_count: '2.5' }, 'h2_count'],
    ['h2_count text', { h2_count: 'three' }, 'h2_count'],
    ['ai_model missing', { ai_model: undefined }, 'ai_model'],
    ['ai_model unknown', { ai_model: 'gpt-5' }, 'ai_model'],
    ['language missing', { language: undefined }, 'language'],
    ['language unsupported', { language: 'xx' }, 'language'],
    ['title too long', { title: 'x'.repeat(201) }, 'title'],
    ['need_bold not a boolean', { need_bold: 'maybe' }, 'need_bold'],
    ['website_uuid malformed', { website_uuid: 'abc' }, 'website_uuid'],
    ['website_uuid unknown', { website_uuid: '7f1c7a3e-9d52-4c1e-8d8a-1f5e2b3c4d5e' }, 'website_uuid'],
    [
      'publish_at not a date-time',
      { website_uuid: '7f1c7a3e-9d52-4c1e-8d8a-1f5e2b3c4d5e', publish_at: 'tomorrow' },
      'publish_at',
    ],
    [
      'draft not a boolean',
      { website_uuid: '7f1c7a3e-9d52-4c1e-8d8a-1f5e2b3c4d5e', draft: 'perhaps' },
      'draft',
    ],
    ['faq_count 11', { faq_count: '11' }, 'faq_count'],
    ['faq_count negative', { faq_count: '-1' }, 'faq_count'],
    ['faq_count text', { faq_count: 'some' }, 'faq_count'],
    ['more than 10 tags', { tags: Array.from({ length: 11 }, (_, i) => `tag${i}`).join(',') }, 'tags'],
    ['a tag over 50 characters', { tags: `ok, ${'x'.repeat(51)}` }, 'tags'],
    ['auto_tags not a boolean', { auto_tags: 'sometimes' }, 'auto_tags'],
    ['meta_description over 160 characters', { meta_description: 'x'.repeat(161) }, 'meta_description'],
  ];

  it.each(cases)(
    'rejects %s with 422 naming the field, storing and charging nothing',
    async (_label, change, field) => {
      const accountId = await newAccount(100);
      const fields: Record<string, string> = {};
      for (const [key, value] of Object.entries({ ...validFields, ...change }))
        if (value !== undefined) fields[key] = value;
      const response = await create(accountId, fields);
      expect(response.statusCode).toBe(422);
      const body = json(response);
      expect(Object.keys(body.errors)).toEqual([field]);
      expect(body.errors[field][0]).toEqual(expect.any(String));
      expect(body.message).toBe(body.errors[field][0]);
      expect(json(await queue(accountId)).data).toHaveLength(0);
      expect(await credits(accountId)).toBe(100);
      expect(await receive(resources.queueUrl)).toHaveLength(0);
    },
  );

  it('gives one message per problem, naming the field', async () => {
    const accountId = await newAccount(100);
    const body = json(
      await create(accountId, {
        ...validFields,
        keyword: '  ',
        h2_count: '99999999999999999999',
        need_bold: 'maybe',
      }),
    );
    expect(body.errors).toEqual({
      keyword: ['The keyword field is required.'],
      h2_count: ['The h2_count must be a whole number.'],
      need_bold: ['The need_bold must be true or false (1 or 0).'],
    });
  });

  it('keeps keyword and title as plain text and accepts upper-case uuids', async () => {
    const accountId = await newAccount(100);
    const created = json(
      await create(accountId, {
        ...validFields,
        keyword: 'tom &amp; <b>jerry</b>',
        title: 'Tom &amp; <b>Jerry</b>',
      }),
    );
    const record = json(await show(accountId, created.article_uuid));
    expect(record.data).toMatchObject({ keyword: 'tom & jerry', title: 'Tom & Jerry' });
    const unknownUpper = await create(accountId, {
      ...validFields,
      website_uuid: '7F1C7A3E-9D52-4C1E-8D8A-1F5E2B3C4D5E',
    });
    expect(json(unknownUpper).errors).toEqual({ website_uuid: ['The selected website does not exist.'] });
  });

  it('ignores category_uuid, publish_at and draft without a website_uuid', async () => {
    const accountId = await newAccount(100);
    const response = await create(accountId, {
      ...validFields,
      category_uuid: 'not-a-uuid',
      publish_at: 'tomorrow',
      draft: 'perhaps',
    });
    expect(response.statusCode).toBe(202);
    const record = json(await show(accountId, json(response).article_uuid));
    expect(record.data).toMatchObject({ website: null, category: null, status: 0 });
  });

  it('ignores the body of an operation that takes none', async () => {
    const accountId = await newAccount(100);
    const created = json(await create(accountId, validFields));
    const withBody = (body: string, contentType: string) =>
      showArticleHandler(
        apiEvent('show-article', {
          accountId,
          pathParameters: { article_uuid: created.article_uuid },
          body,
          contentType,
        }),
      );
    for (const [body, contentType] of [
      ['<xml/>', 'text/xml'],
      ['{', 'application/json'],
      ['x'.repeat(70_000), 'text/plain'],
    ] as const) {
      const response = await withBody(body, contentType);
      expect(response.statusCode).toBe(200);
      expect(json(response).data.uuid).toBe(created.article_uuid);
    }
    // A GET of the queue listing ignores a body too; its POST reads the page from it.
    const page2 = { accountId, body: JSON.stringify({ page: 'x' }), contentType: 'application/json' };
    expect((await listQueueHandler(apiEvent('list-queued-articles', page2))).statusCode).toBe(200);
    expect((await listQueueHandler(apiEvent('list-queued-articles-post', page2))).statusCode).toBe(422);
  });

  it('rejects a body that is not form data or JSON with a JSON error', async () => {
    const accountId = await newAccount(100);
    const response = await createArticleHandler(
      apiEvent('create-article', { accountId, body: '<xml/>', contentType: 'text/xml' }),
    );
    expect(response.statusCode).toBe(415);
    expect(json(response).message).toMatch(/Unsupported content type/);
    const broken = await createArticleHandler(
      apiEvent('create-article', { accountId, body: '{"keyword":', contentType: 'application/json' }),
    );
    expect(broken.statusCode).toBe(400);
  });

  it('answers a multipart body cut off inside a file part with a 400 (its stream error is not left unheard)', async () => {
    const accountId = await newAccount(100);
    const response = await createArticleHandler(
      apiEvent('create-article', {
        accountId,
        body: Buffer.from(
          '--XX\r\nContent-Disposition: form-data; name="keyword"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nbread\r\nabc',
        ),
        contentType: 'multipart/form-data; boundary=XX',
      }),
    );
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toMatch(/^The request body could not be parsed: Unexpected end of form/);
    expect(await credits(accountId)).toBe(100);
  });

  it('answers a JSON body sent as urlencoded (curl -d) with the Content-Type to send', async () => {
    const accountId = await newAccount(100);
    const response = await createArticleHandler(
      apiEvent('create-article', {
        accountId,
        body: JSON.stringify(validFields),
        contentType: 'application/x-www-form-urlencoded',
      }),
    );
    expect(response.statusCode).toBe(415);
    expect(json(response)).toEqual({
      message:
        'The body is JSON but its Content-Type is "application/x-www-form-urlencoded" (what curl -d sends unless told otherwise): send the header Content-Type: application/json.',
    });
    expect(await credits(accountId)).toBe(100);
  });

  it('rejects a page that is not a positive whole number', async () => {
    const accountId = await newAccount(1);
    const response = await listArticlesHandler(
      apiEvent('list-articles', { accountId, query: { page: '0' } }),
    );
    expect(response.statusCode).toBe(422);
    expect(Object.keys(json(response).errors)).toEqual(['page']);
  });
});

describe('credits and the daily limit', () => {
  it('answers a create the credits do not cover with a 202 saying why it waits', async () => {
    const price = priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 3, needBold: false });
    const accountId = await newAccount(price - 1);
    const response = await create(accountId, validFields);
    expect(response.statusCode).toBe(202);
    const { info, article_url } = json(response);
    expect(info).toContain(`not enough credits (it needs ${price}, the account has ${price - 1})`);
    expect(info).toContain(article_url);
    expect(json(await show(accountId, json(response).article_uuid)).status).toBe('not_enough_credits');
  });

  it('reserves exactly what the credits cover under 100 concurrent creates, then generates the rest after credits are added', async () => {
    const price = priceOf({ aiModel: 'gpt-3.5-turbo', h2Count: 1, needBold: false });
    const accountId = await newAccount(30 * price);
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => create(accountId, { ...validFields, h2_count: '1' })),
    );
    expect(responses.every((response) => response.statusCode === 202)).toBe(true);
    expect(await credits(accountId)).toBe(0);

    const shown = await Promise.all(
      responses.map((response) => show(accountId, json(response).article_uuid)),
    );
    const statuses = shown.map((response) => json(response).status);
    expect(statuses.filter((status) => status === 'in_progress')).toHaveLength(30);
    expect(statuses.filter((status) => status === 'not_enough_credits')).toHaveLength(70);
    const deferred = shown.map(json).find((record) => record.status === 'not_enough_credits');
    expect(deferred.data.not_enough_credits).toBe(1);

    expect(await generateAll()).toBe(30);
    expect(json(await list(accountId)).meta.total).toBe(30);

    await addCredits({ accounts: deps.accountStore() }, { accountId, amount: 70 * price });
    await deps.articleStore().makeDeferralsDue(accountId, 'not_enough_credits', new Date().toISOString());
    const swept = await sweeper();
    expect(swept.reservations).toEqual({ reserved: 70, not_enough_credits: 0, daily_limit_reached: 0 });
    expect(await generateAll()).toBe(70);
    expect(json(await list(accountId)).meta.total).toBe(100);
    expect(json(await queue(accountId)).data).toHaveLength(0);
    expect(await credits(accountId)).toBe(0);
  });

  it('re-sends at the next sweep when the message could not be sent after a deferred reservation', async () => {
    const accountId = await newAccount(0);
    const created = json(await create(accountId, validFields));
    await addCredits({ accounts: deps.accountStore() }, { accountId, amount: 4 });
    await deps.articleStore().makeDeferralsDue(accountId, 'not_enough_credits', new Date().toISOString());
    const sqs = sqsClient();
    let failedSends = 0;
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'SendMessageCommand' && failedSends === 0) {
          failedSends++;
          throw new Error('Simulated SQS outage');
        }
        return next(args);
      },
      { step: 'initialize', name: 'failOneSend' },
    );
    let swept: Record<string, unknown>;
    try {
      swept = await sweeper();
    } finally {
      sqs.middlewareStack.remove('failOneSend');
    }
    expect(failedSends).toBe(1);
    // The reservation stands and the same run's generation step sends the message.
    expect(swept.reservations).toEqual({ reserved: 1, not_enough_credits: 0, daily_limit_reached: 0 });
    expect(swept.generations).toEqual({ resent: 1, failed: 0, leased: 0 });
    expect(await generateAll()).toBe(1);
    expect(json(await show(accountId, created.article_uuid)).status).toBe('generated');
    expect(await credits(accountId)).toBe(0);
  });

  it('defers past the daily limit to the next UTC midnight and reserves then', async () => {
    const accountId = await newAccount(100, 2);
    // Yesterday (UTC), so that nothing else in these tables is due by then, and recent enough that
    // the day's counter has not reached its TTL (3 days): DynamoDB Local deletes expired items, and
    // a counter of a long-past day vanished between two creates now and then (the third was queued).
    const midnight = new Date();
    midnight.setUTCHours(0, 0, 0, 0);
    const yesterday = new Date(midnight.getTime() - 24 * 3600 * 1000);
    const at = (dayStart: Date, time: string) => new Date(`${dayStart.toISOString().slice(0, 10)}T${time}Z`);
    const today = at(yesterday, '22:15:00');
    const input = {
      keyword: 'k',
      h2_count: 1,
      ai_model: 'gpt-3.5-turbo' as const,
      language: 'en',
      need_bold: false,
      draft: false,
    };
    const createDeps = { ...deps.createArticleDeps(), clock: () => today };
    const first = await createArticle(createDeps, accountId, input);
    const second = await createArticle(createDeps, accountId, input);
    const third = await createArticle(createDeps, accountId, input);
    expect([first.state, second.state, third.state]).toEqual(['queued', 'queued', 'daily_limit_reached']);

    const record = json(await show(accountId, third.articleUuid));
    expect(record.status).toBe('daily_limit_reached');
    expect(record.data.daily_limit_reached).toBe(1);
    expect(record.data.start_generation_at).toBe(`${midnight.toISOString().slice(0, 10)} 00:00:00`);
    expect(await credits(accountId)).toBe(96);

    const sweepDeps = { ...deps.sweepDeps() };
    expect(await retryDeferredReservations({ ...sweepDeps, clock: () => at(yesterday, '23:59:00') })).toEqual(
      {
        reserved: 0,
        not_enough_credits: 0,
        daily_limit_reached: 0,
      },
    );
    expect(await retryDeferredReservations({ ...sweepDeps, clock: () => at(midnight, '00:00:30') })).toEqual({
      reserved: 1,
      not_enough_credits: 0,
      daily_limit_reached: 0,
    });
    expect(json(await show(accountId, third.articleUuid)).status).toBe('in_progress');
    expect(await credits(accountId)).toBe(94);
  });
});

describe('retries, redeliveries and crashes', () => {
  it('generates and charges once when the same message is delivered twice', async () => {
    const accountId = await newAccount(100);
    const created = json(await create(accountId, validFields));
    const [message] = await receive(resources.queueUrl);
    if (!message) throw new Error('no message');
    const event = sqsEventOf([message]);
    await Promise.all([worker(event, lambdaContext), worker(event, lambdaContext)]);
    await worker(event, lambdaContext);
    const listed = json(await list(accountId));
    expect(listed.meta.total).toBe(1);
    expect(listed.data.map((item: { data: { uuid: string } }) => item.data.uuid)).toEqual([
      created.article_uuid,
    ]);
    expect(await credits(accountId)).toBe(96);
  });

  it('regenerates after a crash between generation and saving, with one article and one charge', async () => {
    const accountId = await newAccount(100);
    const created = json(await create(accountId, validFields));
    const client = dynamoDocumentClient();
    let crashes = 1;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (
          String(context.commandName).startsWith('TransactWrite') &&
          crashes > 0 &&
          JSON.stringify(args.input).includes('generatedTitle')
        ) {
          crashes--;
          throw new Error('Simulated crash before the generated article was saved');
        }
        return next(args);
      },
      { step: 'initialize', name: 'crashOnce' },
    );
    try {
      await generateAll();
    } finally {
      client.middlewareStack.remove('crashOnce');
    }
    expect(crashes).toBe(0);
    const listed = json(await list(accountId));
    expect(listed.meta.total).toBe(1);
    expect(listed.data[0].data.uuid).toBe(created.article_uuid);
    expect(await credits(accountId)).toBe(96);
  });

  it('charges once when the reservation committed but its response was lost and the SDK retried', async () => {
    const accountId = await newAccount(100);
    const client = dynamoDocumentClient();
    let lostResponses = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (String(context.commandName).startsWith('TransactWrite') && lostResponses === 0) {
          lostResponses++;
          throw Object.assign(new Error('Simulated lost response'), { name: 'TimeoutError', $metadata: {} });
        }
        return result;
      },
      { step: 'finalizeRequest', priority: 'low', name: 'loseFirstResponse' },
    );
    let response: APIGatewayProxyResult;
    try {
      response = await create(accountId, validFields);
    } finally {
      client.middlewareStack.remove('loseFirstResponse');
    }
    expect(lostResponses).toBe(1);
    expect(response.statusCode).toBe(202);
    expect(await credits(accountId)).toBe(96);
    expect(json(await queue(accountId)).data).toHaveLength(1);
    expect(json(await show(accountId, json(response).article_uuid)).status).toBe('in_progress');
  });

  it('retries a model that fails for a while and still charges once', async () => {
    const accountId = await newAccount(100);
    json(await create(accountId, validFields));
    fakeOpenAi.behaviour = { latencyMs: 0, failFirst: 2, failWithStatus: 500 };
    await generateAll();
    expect(json(await list(accountId)).meta.total).toBe(1);
    expect(await credits(accountId)).toBe(96);
  });

  it.each([
    ['always fails', { latencyMs: 0, failWithStatus: 500 }],
    ['returns an outline that is not JSON', { latencyMs: 0, malformedOutline: true }],
    ['returns the wrong number of headings', { latencyMs: 0, wrongHeadingCount: 1 }],
  ])('fails the article and refunds exactly once when the model %s', async (_label, behaviour) => {
    const accountId = await newAccount(100);
    const created = json(await create(accountId, validFields));
    expect(await credits(accountId)).toBe(96);
    fakeOpenAi.behaviour = behaviour;
    await generateAll();
    const record = json(await show(accountId, created.article_uuid));
    expect(record.status).toBe('error');
    expect(record.data.generation_error).toBe(1);
    expect(await credits(accountId)).toBe(100);
    const [queuedRecord] = json(await queue(accountId)).data;
    expect(queuedRecord.data.generation_error).toBe(1);

    // A late duplicate of the last delivery changes nothing.
    const stored = await deps.articleStore().get(accountId, created.article_uuid);
    if (!stored) throw new Error('missing');
    expect(await deps.articleStore().failGeneration(stored, 'again', new Date().toISOString())).toBe(false);
    expect(
      await deps.articleStore().failGeneration(stored, 'again', new Date().toISOString(), 'its-last-lease'),
    ).toBe(false);
    expect(await credits(accountId)).toBe(100);
  });
});
