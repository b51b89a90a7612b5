/**
 * The hostile-text corpus end to end: through the create handler (multipart and JSON), the
 * worker with a fake OpenAI server (through the real openai client) that answers with hostile
 * titles, headings and HTML, and publishing to a fake plugin server whose category names are
 * hostile too. Nothing that can run reaches the API's answers or the site.
 */
import { PurgeQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult } from 'aws-lambda';
import fc from 'fast-check';
import { handler as createArticleHandler } from '../../functions/api/create-article';
import { handler as createWebsiteHandler } from '../../functions/api/create-website';
import { handler as listArticlesHandler } from '../../functions/api/list-articles';
import { handler as listCategoriesHandler } from '../../functions/api/list-categories';
import { handler as listQueueHandler } from '../../functions/api/list-queued-articles';
import { createAccount } from '../../functions/core/accounts';
import { handler as worker } from '../../functions/worker/generation-worker';
import type { ProvisionedResources } from '../../local/provision';
import * as deps from '../support/deps';
import { apiEvent } from '../support/events';
import { type FakeOpenAi, startFakeOpenAi } from '../support/fake-openai-server';
import { type FakeWordPress, startFakeWordPress } from '../support/fake-wordpress';
import { drainQueue } from '../support/generation-queue';
import { executableFindings, HOSTILE_CORPUS, hostileText, plainTextFindings } from '../support/hostile-text';
import { multipartBody, urlencodedBody } from '../support/multipart';
import { provisionTestResources } from '../support/test-resources';

const PASSWORD = 'correct horse battery';
let resources: ProvisionedResources;
let fakeOpenAi: FakeOpenAi;
let site: FakeWordPress;

beforeAll(async () => {
  fakeOpenAi = await startFakeOpenAi();
  site = await startFakeWordPress();
  resources = await provisionTestResources({
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fakeOpenAi.baseURL,
    OPENAI_MAX_RETRIES: '0',
    PUBLIC_BASE_URL: '',
  });
});

afterAll(async () => {
  await fakeOpenAi.close();
  await site.close();
});

beforeEach(async () => {
  await new SQSClient({}).send(new PurgeQueueCommand({ QueueUrl: resources.queueUrl }));
});

const json = (response: APIGatewayProxyResult) => JSON.parse(response.body);
const corpus = (index: number) => HOSTILE_CORPUS[index % HOSTILE_CORPUS.length] as string;

async function newAccount(credits = 1000) {
  const { account } = await createAccount(
    { accounts: deps.accountStore(), tokens: deps.tokenStore() },
    { name: 'Hostile text', credits },
  );
  return account.accountId;
}

const credits = async (accountId: string) => (await deps.accountStore().get(accountId))?.credits;
const valid = { h2_count: '3', ai_model: 'gpt-3.5-turbo', language: 'en' };

describe('hostile keywords and titles at create', () => {
  it('either refuses them on their field (charging nothing) or stores them as safe plain text', async () => {
    const accountId = await newAccount();
    const samples = [
      ...HOSTILE_CORPUS.map((entry) => [entry, entry] as const),
      ...fc.sample(fc.tuple(hostileText, hostileText), { numRuns: 20, seed: 9 }),
    ];
    let accepted = 0;
    for (const [index, [keyword, title]] of samples.entries()) {
      const fields = { ...valid, keyword, title };
      const before = await credits(accountId);
      const response = await createArticleHandler(
        apiEvent('create-article', {
          accountId,
          ...(index % 2 === 0
            ? { body: JSON.stringify(fields), contentType: 'application/json' }
            : multipartBody(fields)),
        }),
      );
      if (response.statusCode === 422) {
        for (const field of Object.keys(json(response).errors)) expect(['keyword', 'title']).toContain(field);
        expect(await credits(accountId)).toBe(before);
        continue;
      }
      expect(response.statusCode).toBe(202);
      accepted++;
    }
    expect(accepted).toBeGreaterThan(HOSTILE_CORPUS.length / 2);

    const queued = json(await listQueueHandler(apiEvent('list-queued-articles', { accountId })));
    expect(queued.meta.total).toBe(accepted);
    for (let page = 1; page <= queued.meta.last_page; page++) {
      const listed = json(
        await listQueueHandler(
          apiEvent('list-queued-articles', { accountId, query: { page: String(page) } }),
        ),
      );
      for (const { data } of listed.data) {
        expect(plainTextFindings(data.keyword)).toEqual([]);
        expect(plainTextFindings(data.title ?? '')).toEqual([]);
      }
    }
  });

  it.each([
    ['a lone surrogate in a JSON title', 'json', { title: 'Bread \uD800' }, 'title'],
    ['NUL in a multipart keyword', 'multipart', { keyword: 'bread\u0000' }, 'keyword'],
    ['ESC in a urlencoded title', 'urlencoded', { title: '\u001B[31mBread' }, 'title'],
    ['BEL in a JSON language', 'json', { language: 'en\u0007' }, 'language'],
    ['a lone surrogate in a JSON list of tags', 'json', { tags: ['a\uD800b'] }, 'tags'],
    ['SOH in urlencoded tags', 'urlencoded', { tags: 'bread,a\u0001' }, 'tags'],
    ['NUL in a JSON meta_description', 'json', { meta_description: 'm\u0000x' }, 'meta_description'],
    ['BEL in a multipart meta_description', 'multipart', { meta_description: 'm\u0007' }, 'meta_description'],
  ] as const)(
    'answers %s with 422 on that field, charging and queueing nothing',
    async (_label, encoding, change, field) => {
      const accountId = await newAccount(100);
      const fields: Record<string, unknown> = { ...valid, keyword: 'bread', ...change };
      const formFields = fields as Record<string, string>; // lists are sent as JSON only
      const body =
        encoding === 'json'
          ? { body: JSON.stringify(fields), contentType: 'application/json' }
          : encoding === 'multipart'
            ? multipartBody(formFields)
            : urlencodedBody(formFields);
      const response = await createArticleHandler(apiEvent('create-article', { accountId, ...body }));
      expect(response.statusCode).toBe(422);
      expect(Object.keys(json(response).errors)).toEqual([field]);
      expect(await credits(accountId)).toBe(100);
      expect(json(await listQueueHandler(apiEvent('list-queued-articles', { accountId }))).meta.total).toBe(
        0,
      );
    },
  );

  it('answers a multipart title whose bytes are not UTF-8 with 422 on the title', async () => {
    const accountId = await newAccount(100);
    const { body, contentType } = multipartBody({ ...valid, keyword: 'bread', title: 'TITLE' });
    const broken = Buffer.from(body.toString('latin1').replace('TITLE', '\xed\xa0\x80'), 'latin1');
    const response = await createArticleHandler(
      apiEvent('create-article', { accountId, body: broken, contentType }),
    );
    expect(response.statusCode).toBe(422);
    expect(json(response).errors).toEqual({ title: ['The title must be valid UTF-8 text.'] });
    expect(await credits(accountId)).toBe(100);
  });

  it.each([
    [
      'a urlencoded keyword: 422 on the keyword',
      'application/x-www-form-urlencoded',
      'keyword=sh\uFFFDoes&h2_count=1&ai_model=gpt-3.5-turbo&language=en',
      422,
    ],
    [
      'urlencoded tags: 422 on the tags',
      'application/x-www-form-urlencoded',
      'keyword=shoes&tags=sh\uFFFDoes&h2_count=1&ai_model=gpt-3.5-turbo&language=en',
      422,
    ],
    [
      'a JSON keyword: 422 on the keyword',
      'application/json',
      '{"keyword":"sh\uFFFDoes","h2_count":1,"ai_model":"gpt-3.5-turbo","language":"en"}',
      422,
    ],
    [
      'JSON tags: 422 on the tags',
      'application/json',
      '{"keyword":"shoes","tags":["ok","sh\uFFFDoes"],"h2_count":1,"ai_model":"gpt-3.5-turbo","language":"en"}',
      422,
    ],
    [
      'the JSON itself: 400',
      'application/json',
      '{"keyword":"shoes",\uFFFD"h2_count":1,"ai_model":"gpt-3.5-turbo","language":"en"}',
      400,
    ],
  ])(
    'answers bytes that were not UTF-8 in a text body (U+FFFD in their place) in %s, charging nothing',
    async (_case, contentType, text, status) => {
      const accountId = await newAccount(100);
      const response = await createArticleHandler(
        apiEvent('create-article', { accountId, body: text, contentType }),
      );
      expect(response.statusCode).toBe(status);
      if (status === 422) {
        const [field] = Object.keys(json(response).errors);
        expect(json(response).errors).toEqual({
          [String(field)]: [`The ${field} must be valid UTF-8 text.`],
        });
        expect(['keyword', 'tags']).toContain(field);
      } else expect(json(response).message).toContain('not valid UTF-8');
      expect(await credits(accountId)).toBe(100);
    },
  );

  it('answers character references to U+FFFD or a control character with 422 on their field, charging nothing', async () => {
    const accountId = await newAccount(100);
    const response = await createArticleHandler(
      apiEvent('create-article', {
        accountId,
        ...multipartBody({
          ...valid,
          keyword: 'a&#0;b',
          title: 'ok',
          tags: 'x&#xD800;y',
          meta_description: 'm&#1;',
        }),
      }),
    );
    expect(response.statusCode).toBe(422);
    expect(Object.keys(json(response).errors).sort()).toEqual(['keyword', 'meta_description', 'tags']);
    expect(await credits(accountId)).toBe(100);
  });

  it.each([
    ['create an article', createArticleHandler, 'create-article'],
    ['create a website', createWebsiteHandler, 'create-website'],
  ] as const)(
    'answers a JSON body nested thousands deep to %s with 400 JSON, not a server error',
    async (_what, handler, operation) => {
      const accountId = await newAccount(100);
      const deep = `{"keyword":"a","x":${'{"a":'.repeat(8_000)}1${'}'.repeat(8_000)},"x":1}`;
      const response = await handler(
        apiEvent(operation, { accountId, body: deep, contentType: 'application/json' }),
      );
      expect(response.statusCode).toBe(400);
      expect(json(response).message).toMatch(/nest at most 32 levels/);
      expect(await credits(accountId)).toBe(100);
    },
  );

  it('answers a control character in a website password with 422, calling no site', async () => {
    const accountId = await newAccount(100);
    const calls = site.requests.length;
    const response = await createWebsiteHandler(
      apiEvent('create-website', {
        accountId,
        ...urlencodedBody({ url: site.url, login: 'inkpress', password: `${PASSWORD}\u0000` }),
      }),
    );
    expect(response.statusCode).toBe(422);
    expect(Object.keys(json(response).errors)).toEqual(['password']);
    expect(site.requests.length).toBe(calls);
  });
});

describe('hostile model output and a hostile site', () => {
  it('publishes and shows nothing that can run', async () => {
    site.categories = HOSTILE_CORPUS.slice(0, 12).map((name, index) => ({
      id: index + 1,
      name,
      slug: index % 2 === 0 ? name : `slug-${index}`,
      parent: 0,
    }));
    fakeOpenAi.behaviour = {
      latencyMs: 0,
      outline: (count) => {
        const start = Math.floor(Math.random() * HOSTILE_CORPUS.length);
        return {
          title: `${corpus(start)} title`,
          headings: Array.from({ length: count }, (_, index) => `${corpus(start + index + 1)} heading`),
        };
      },
      sectionHtml: (call) => `<p>${corpus(call)}</p>${corpus(call + 17)}<h2>${corpus(call + 29)}</h2>`,
    };
    const accountId = await newAccount();
    const registered = await createWebsiteHandler(
      apiEvent('create-website', {
        accountId,
        ...urlencodedBody({ url: `${site.url}/hostile`, login: 'inkpress', password: PASSWORD }),
      }),
    );
    expect(registered.statusCode).toBe(201);
    const websiteUuid = json(registered).data.uuid as string;

    const categories = json(
      await listCategoriesHandler(
        apiEvent('list-categories', { accountId, pathParameters: { website_uuid: websiteUuid } }),
      ),
    );
    expect(categories.data.length).toBeGreaterThan(0);
    for (const category of categories.data) {
      expect(plainTextFindings(category.name)).toEqual([]);
      expect(plainTextFindings(category.slug)).toEqual([]);
    }

    const articleUuids: string[] = [];
    for (let index = 0; index < 8; index++) {
      const response = await createArticleHandler(
        apiEvent('create-article', {
          accountId,
          ...multipartBody({ ...valid, keyword: `bread ${index}`, website_uuid: websiteUuid }),
        }),
      );
      expect(response.statusCode).toBe(202);
      articleUuids.push(json(response).article_uuid);
    }
    expect(await drainQueue(resources.queueUrl, worker)).toBe(8);

    const listed = json(await listArticlesHandler(apiEvent('list-articles', { accountId })));
    expect(listed.data).toHaveLength(8);
    for (const { data } of listed.data) {
      expect(plainTextFindings(data.title)).toEqual([]);
      expect(executableFindings(data.content)).toEqual([]);
      expect(data.content.match(/<h2>/g)).toHaveLength(3);
      expect(data.cms_permalink).toMatch(/^https?:\/\//);
    }
    for (const articleUuid of articleUuids) {
      const post = [...site.posts.values()].find((candidate) => candidate.article_uuid === articleUuid);
      expect(post).toBeDefined();
      expect(plainTextFindings(post?.title ?? '')).toEqual([]);
      expect(executableFindings(post?.content ?? '')).toEqual([]);
    }
  });
});
