import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OutboundPolicy } from '../../../functions/adapters/wordpress/guarded-http';
import { systemResolver } from '../../../functions/adapters/wordpress/ssrf-guard';
import { WordPressClient } from '../../../functions/adapters/wordpress/wordpress-client';
import {
  CmsError,
  CmsNotSentError,
  type CmsPost,
  type SiteAccess,
} from '../../../functions/core/websites/cms-client';
import { type LocalHttpServer, startLocalHttpServer } from '../../support/local-http-server';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  inkpressAuthorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

let server: LocalHttpServer;
let baseUrl: string;
const seen: Seen[] = [];
let answer: (request: IncomingMessage, response: ServerResponse, body: string) => void;

const json = (response: ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));

beforeAll(async () => {
  server = await startLocalHttpServer((request, response, body) => {
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
      inkpressAuthorization: request.headers['x-inkpress-authorization'] as string | undefined,
      contentType: request.headers['content-type'],
      body,
    });
    answer(request, response, body);
  });
  baseUrl = server.url;
});

afterAll(() => server.close());

beforeEach(() => {
  seen.length = 0;
});

const policy: OutboundPolicy = {
  allowPrivate: true,
  resolve: systemResolver,
  connectTimeoutMs: 1_000,
  totalTimeoutMs: 1_000,
  maxResponseBytes: 100_000,
  maxRedirects: 3,
};
const client = new WordPressClient(policy);
const site = (): SiteAccess => ({ url: `${baseUrl}/blog`, login: 'inkpress', password: 'pä ss:word' });
/** The smallest post the client sends. */
const minimalPost = (): CmsPost => ({
  articleUuid: '3f1c0c6e-6d2e-4b8a-9f0e-0a1b2c3d4e5f',
  title: 'My post',
  introHtml: '<p>x</p>',
  sections: [],
  status: 'publish',
  language: 'en',
  tags: [],
});
const expectedAuth = `Basic ${Buffer.from('inkpress:pä ss:word', 'utf8').toString('base64')}`;

async function failureOf(promise: Promise<unknown>): Promise<CmsError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CmsError);
  return error as CmsError;
}

describe('successful calls', () => {
  it('status: calls the plugin route with Basic auth in both headers', async () => {
    answer = (_request, response) =>
      json(response, 200, {
        user: { id: 7, login: 'inkpress', roles: ['inkpress_editor'] },
        role_ok: true,
        wordpress_version: '6.1.9',
        plugin_version: '1.0.0',
        php_version: '8.2.0',
      });
    await expect(client.status(site())).resolves.toEqual({
      userLogin: 'inkpress',
      roles: ['inkpress_editor'],
      cmsVersion: '6.1.9',
      pluginVersion: '1.0.0',
    });
    expect(seen).toEqual([
      expect.objectContaining({
        method: 'GET',
        url: '/blog/?rest_route=/inkpress/v1/status',
        authorization: expectedAuth,
        inkpressAuthorization: expectedAuth,
      }),
    ]);
  });

  it('categories: maps ids to strings and keeps parents', async () => {
    answer = (_request, response) =>
      json(response, 200, {
        categories: [
          { id: 1, name: 'Uncategorized', slug: 'uncategorized', parent: 0 },
          { id: 5, name: 'Café & Bar', slug: 'cafe-bar', parent: 1 },
        ],
      });
    await expect(client.categories(site())).resolves.toEqual([
      { cmsId: '1', name: 'Uncategorized', slug: 'uncategorized' },
      { cmsId: '5', name: 'Café & Bar', slug: 'cafe-bar', parentCmsId: '1' },
    ]);
    expect(seen[0]?.url).toBe('/blog/?rest_route=/inkpress/v1/categories');
  });

  it('createPost: sends the structured post as JSON without any markup characters, and maps the read-back', async () => {
    const readBack = {
      blocks: 9,
      freeform_blocks: 0,
      tags: ['Bread', 'Rye'],
      excerpt: true,
      seo: { adapter: 'yoast', meta_description: true, focus_keyword: true, title: true },
      schema: { printed_by: 'yoast', types: ['FAQPage'] },
      faq_questions: 1,
    };
    answer = (_request, response) =>
      json(response, 201, {
        id: 42,
        link: 'http://example.test/?p=42',
        status: 'future',
        slug: 'my-post',
        date_gmt: '2030-01-02T03:04:05Z',
        category_ids: [5],
        article_uuid: '3f1c0c6e-6d2e-4b8a-9f0e-0a1b2c3d4e5f',
        created: true,
        site: readBack,
      });
    const result = await client.createPost(site(), {
      articleUuid: '3f1c0c6e-6d2e-4b8a-9f0e-0a1b2c3d4e5f',
      title: 'My post & <more>',
      introHtml: '<p>Intro <!-- not a block --></p>',
      sections: [{ heading: 'One', html: '<p>Text</p>' }],
      faq: { heading: 'Frequently asked questions', items: [{ question: 'Why?', answer: 'Because.' }] },
      status: 'future',
      slug: 'my-post',
      dateGmt: '2030-01-02T03:04:05.000Z',
      categoryCmsId: '5',
      language: 'en',
      metaDescription: 'A description',
      focusKeyword: 'my post',
      excerpt: 'An excerpt.',
      tags: ['Bread', 'Rye'],
    });
    expect(result).toEqual({
      cmsId: '42',
      permalink: 'http://example.test/?p=42',
      status: 'future',
      slug: 'my-post',
      dateGmt: '2030-01-02T03:04:05Z',
      created: true,
      site: {
        postId: '42',
        link: 'http://example.test/?p=42',
        status: 'future',
        blocks: 9,
        freeformBlocks: 0,
        tags: ['Bread', 'Rye'],
        excerpt: true,
        seoAdapter: 'yoast',
        metaDescription: true,
        focusKeyword: true,
        seoTitle: true,
        schemaBy: 'yoast',
        schemaTypes: ['FAQPage'],
        faqQuestions: 1,
      },
    });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/blog/?rest_route=/inkpress/v1/posts',
      contentType: 'application/json; charset=utf-8',
    });
    expect(seen[0]?.body).not.toMatch(/[<>]/);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      article_uuid: '3f1c0c6e-6d2e-4b8a-9f0e-0a1b2c3d4e5f',
      title: 'My post & <more>',
      intro_html: '<p>Intro <!-- not a block --></p>',
      sections: [{ heading: 'One', html: '<p>Text</p>' }],
      faq: { heading: 'Frequently asked questions', items: [{ question: 'Why?', answer: 'Because.' }] },
      status: 'future',
      slug: 'my-post',
      date_gmt: '2030-01-02T03:04:05Z',
      category_id: 5,
      language: 'en',
      meta_description: 'A description',
      focus_keyword: 'my post',
      excerpt: 'An excerpt.',
      tags: ['Bread', 'Rye'],
    });
  });

  it('readPost: GETs the post of the article (plugin 1.4), none when the site has no post for it, and fails without the route', async () => {
    const uuid = '3f1c0c6e-6d2e-4b8a-9f0e-0a1b2c3d4e5f';
    answer = (_request, response) =>
      json(response, 200, {
        id: 42,
        link: 'http://example.test/my-post/',
        status: 'publish',
        slug: 'my-post',
        date_gmt: '2024-01-01T00:00:00Z',
        created: false,
        article_uuid: uuid,
      });
    expect(await client.readPost(site(), uuid)).toMatchObject({
      cmsId: '42',
      permalink: 'http://example.test/my-post/',
      status: 'publish',
    });
    expect(seen[0]).toMatchObject({ method: 'GET', url: `/blog/?rest_route=/inkpress/v1/posts/${uuid}` });

    answer = (_request, response) =>
      json(response, 404, {
        code: 'inkpress_post_not_found',
        message: 'This user has no post for this article.',
      });
    expect(await client.readPost(site(), uuid)).toBeUndefined();

    answer = (_request, response) =>
      json(response, 404, {
        code: 'rest_no_route',
        message: 'No route was found matching the URL and request method.',
      });
    await expect(client.readPost(site(), uuid)).rejects.toMatchObject({ code: 'rest_no_route' });

    // Another article's post (a cache mixing answers up) is not taken.
    answer = (_request, response) =>
      json(response, 200, {
        id: 7,
        link: 'http://example.test/other/',
        status: 'publish',
        slug: 'other',
        date_gmt: null,
        created: false,
        article_uuid: '00000000-0000-4000-8000-000000000000',
      });
    await expect(client.readPost(site(), uuid)).rejects.toBeInstanceOf(CmsError);
  });

  it('createPost: an existing post (200, created false) is a success, with or without a read-back', async () => {
    answer = (_request, response) =>
      json(response, 200, {
        id: 42,
        link: 'http://example.test/my-post/',
        status: 'publish',
        slug: 'my-post',
        date_gmt: '2024-01-01T00:00:00Z',
        created: false,
      });
    const result = await client.createPost(site(), minimalPost());
    expect(result.created).toBe(false);
    expect(result.site).toBeUndefined();
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      article_uuid: '3f1c0c6e-6d2e-4b8a-9f0e-0a1b2c3d4e5f',
      title: 'My post',
      intro_html: '<p>x</p>',
      sections: [],
      status: 'publish',
      language: 'en',
      tags: [],
    });
  });

  it.each([
    [
      'before it',
      (body: string) =>
        `<br />\n<b>Deprecated</b>: Function {closure} is deprecated in <b>/x.php</b> on line <b>3</b><br />\n${body}`,
    ],
    ['after it', (body: string) => `${body}\n<b>Notice</b>: Undefined index: {x} in <b>/y.php</b>`],
  ])(
    'createPost: finds the plugin answer when the site prints PHP notices %s (the post was created)',
    async (_where, wrap) => {
      answer = (_request, response) =>
        response.writeHead(201, { 'Content-Type': 'application/json; charset=UTF-8' }).end(
          wrap(
            JSON.stringify({
              id: 117,
              link: 'http://example.test/notice/',
              status: 'publish',
              slug: 'notice',
              date_gmt: '2024-01-01T00:00:00Z',
              created: true,
            }),
          ),
        );
      const result = await client.createPost(site(), {
        articleUuid: '3f1c0c6e-6d2e-4b8a-9f0e-0a1b2c3d4e5f',
        title: 'Notice',
        introHtml: '<p>x</p>',
        sections: [],
        status: 'publish',
        language: 'en',
        tags: [],
      });
      expect(result).toMatchObject({ cmsId: '117', permalink: 'http://example.test/notice/', created: true });
    },
  );

  it.each([
    ['a read-back of the wrong shape', { blocks: 'many', tags: 'x' }],
    ['a read-back that is not an object', 'kept'],
    ['a null read-back', null],
  ])('createPost: %s counts as none; the post is still created', async (_case, readBack) => {
    answer = (_request, response) =>
      json(response, 201, {
        id: 43,
        link: 'http://example.test/other-post/',
        status: 'draft',
        slug: 'other-post',
        date_gmt: null,
        created: true,
        site: readBack,
      });
    const result = await client.createPost(site(), {
      articleUuid: '3f1c0c6e-6d2e-4b8a-9f0e-0a1b2c3d4e5f',
      title: 'Other post',
      introHtml: '<p>x</p>',
      sections: [],
      status: 'draft',
      language: 'en',
      tags: [],
    });
    expect(result).toMatchObject({ cmsId: '43', created: true, status: 'draft' });
    expect(result.site).toBeUndefined();
  });

  it.each([
    ['javascript:alert(1)', '%3Cscript%3E'],
    ['data:text/html,<script>alert(1)</script>', '<img src=x onerror=alert(1)>'],
    ['not a url', '%E0%A4%A'],
  ])(
    'createPost: a hostile site answering link %j and slug %j gets the shortlink and our slug',
    async (link, slug) => {
      answer = (_request, response) =>
        json(response, 201, { id: 7, link, status: 'publish', slug, date_gmt: null, created: true });
      const result = await client.createPost(site(), {
        articleUuid: '3f1c0c6e-6d2e-4b8a-9f0e-0a1b2c3d4e5f',
        title: 'My post',
        introHtml: '<p>x</p>',
        sections: [],
        language: 'en',
        tags: [],
        status: 'publish',
      });
      expect(result.permalink).toBe(`${baseUrl}/blog/?p=7`);
      expect(result.slug).toBeNull();
    },
  );

  it('createPost: what the site says it kept is text, never markup (tag names come back decoded from the site)', async () => {
    answer = (_request, response) =>
      json(response, 201, {
        id: 8,
        link: 'http://example.test/?p=8&x="><svg onload=alert(1)>',
        status: 'publish<script>',
        slug: null,
        date_gmt: null,
        created: true,
        site: {
          blocks: 3,
          freeform_blocks: 0,
          tags: ["<img src=x onerror=alert('t')>", 'Tom & Jerry', '<b>bold'],
          excerpt: true,
          seo: { adapter: '<i>inkpress</i>', meta_description: true, focus_keyword: false },
          schema: { printed_by: '<s>', types: ['Article<br>'] },
          faq_questions: 0,
        },
      });
    const result = await client.createPost(site(), minimalPost());
    expect(result.permalink).toBe('http://example.test/?p=8&x=%22%3E%3Csvg%20onload=alert(1)%3E');
    expect(result.site).toMatchObject({
      link: result.permalink,
      status: 'publish\u2039script\u203A',
      tags: ["\u2039img src=x onerror=alert('t')\u203A", 'Tom & Jerry', '\u2039b\u203Abold'],
      seoAdapter: '\u2039i\u203Ainkpress\u2039/i\u203A',
      schemaBy: '\u2039s\u203A',
      schemaTypes: ['Article\u2039br\u203A'],
    });
    expect(JSON.stringify(result)).not.toMatch(/[<>]/);
  });

  it("createPost: refuses an answer carrying another article's post (nothing to record; the next attempt asks again)", async () => {
    answer = (_request, response) =>
      json(response, 201, {
        id: 555,
        link: 'http://evil.example/',
        status: 'publish',
        slug: null,
        date_gmt: '2020-01-01T00:00:00Z',
        created: true,
        article_uuid: '00000000-0000-0000-0000-000000000000',
      });
    const error = await failureOf(client.createPost(site(), minimalPost()));
    expect(error.reason).toBe('plugin_error');
    expect(error.message).toBe("The site answered with another article's post");
  });

  it('createPost: keeps at most 10 dropped internal links of sane length from the read-back, however many a site names (within the 100 KB an answer may have)', async () => {
    const named = Array.from({ length: 2_000 }, (_, n) => `https://example.test/p${n}/`);
    answer = (_request, response) =>
      json(response, 201, {
        id: 9,
        link: 'https://example.test/?p=9',
        status: 'publish',
        slug: null,
        date_gmt: null,
        created: true,
        site: {
          blocks: 3,
          freeform_blocks: 0,
          tags: [],
          excerpt: true,
          seo: { adapter: 'inkpress', meta_description: true, focus_keyword: true },
          schema: { printed_by: 'inkpress', types: ['Article'] },
          faq_questions: 0,
          internal_links_kept: 0,
          internal_links_dropped: 2_001,
          internal_links_dropped_urls: [`https://example.test/${'x'.repeat(5_000)}`, ...named],
        },
      });
    const result = await client.createPost(site(), minimalPost());
    expect(result.site?.internalLinksDroppedUrls).toEqual(named.slice(0, 10));
  });

  it('createPost: keeps a WordPress slug, percent-encoded non-ASCII included', async () => {
    answer = (_request, response) =>
      json(response, 201, {
        id: 8,
        link: 'https://example.test/caf%c3%a9-au-lait/',
        status: 'publish',
        slug: 'caf%c3%a9-au-lait_2',
        date_gmt: null,
        created: true,
      });
    const result = await client.createPost(site(), {
      articleUuid: '3f1c0c6e-6d2e-4b8a-9f0e-0a1b2c3d4e5f',
      title: 'Café au lait',
      introHtml: '<p>x</p>',
      sections: [],
      language: 'en',
      tags: [],
      status: 'publish',
    });
    expect(result).toMatchObject({
      permalink: 'https://example.test/caf%c3%a9-au-lait/',
      slug: 'caf%c3%a9-au-lait_2',
    });
  });

  it('follows a redirect of the whole site (e.g. to a subfolder) keeping the credentials', async () => {
    answer = (request, response) => {
      if (request.url?.startsWith('/blog/')) {
        response.writeHead(301, { Location: `/wp${request.url}` }).end();
        return;
      }
      json(response, 200, { categories: [] });
    };
    await expect(client.categories(site())).resolves.toEqual([]);
    expect(seen.map((request) => [request.url, request.inkpressAuthorization])).toEqual([
      ['/blog/?rest_route=/inkpress/v1/categories', expectedAuth],
      ['/wp/blog/?rest_route=/inkpress/v1/categories', expectedAuth],
    ]);
  });
});

describe('error mapping', () => {
  it.each([
    [
      'any refused login (401 inkpress_login_failed)',
      401,
      {
        code: 'inkpress_login_failed',
        message:
          'Login failed: check the user name, the password, and that the user has only the Inkpress Editor role.',
        data: { status: 401 },
      },
      'unauthorized',
    ],
    [
      'a wrong password from plugin 1.0 (401 inkpress_invalid_login)',
      401,
      { code: 'inkpress_invalid_login', data: { status: 401 } },
      'unauthorized',
    ],
    [
      'no credentials accepted (401 inkpress_not_authenticated)',
      401,
      { code: 'inkpress_not_authenticated', message: 'Authentication required', data: { status: 401 } },
      'unauthorized',
    ],
    [
      'a post the role may no longer make (403 inkpress_forbidden)',
      403,
      { code: 'inkpress_forbidden', message: 'This user cannot publish posts.' },
      'plugin_error',
    ],
    [
      'a user without the role from plugin 1.0 (403)',
      403,
      { code: 'inkpress_missing_role', data: { status: 403 } },
      'unauthorized',
    ],
    [
      'no plugin (404 rest_no_route)',
      404,
      { code: 'rest_no_route', data: { status: 404 } },
      'plugin_missing',
    ],
    [
      'no plugin, core refusing the Basic password (401 incorrect_password)',
      401,
      { code: 'incorrect_password', data: { status: 401 } },
      'plugin_missing',
    ],
    [
      'a rejected post (400)',
      400,
      { code: 'inkpress_invalid_status', data: { status: 400 } },
      'invalid_request',
    ],
    ['an unknown category (422)', 422, { code: 'inkpress_unknown_category' }, 'invalid_request'],
    ['a failed insert in the plugin (500 JSON)', 500, { code: 'inkpress_insert_failed' }, 'plugin_error'],
    ['a busy lock in the plugin (503 JSON)', 503, { code: 'inkpress_busy' }, 'plugin_error'],
    [
      "a fatal error caught by WordPress, not the plugin's answer (500 JSON)",
      500,
      { code: 'internal_server_error', message: 'There has been a critical error on this website.' },
      'unreachable',
    ],
    ['rate limiting (429)', 429, { code: 'too_many' }, 'unreachable'],
    ['a 2xx that is not the plugin answer', 200, { name: 'Some site', routes: {} }, 'plugin_missing'],
  ])('%s: HTTP %i, body %j -> %s', async (_label, status, body, reason) => {
    answer = (_request, response) => json(response, status, body);
    const error = await failureOf(client.status(site()));
    expect(error.reason).toBe(reason);
    expect(error.httpStatus).toBe(status);
    expect(error.message).not.toContain('pä ss:word');
  });

  it.each([
    ['its message', { code: 'inkpress_bad', message: 'echo inkpress:pä ss:word' }],
    [
      'its message, HTML-escaped',
      { code: 'inkpress_bad', message: 'echo p&auml; ss:word <b>pä ss:word</b>' },
    ],
    ['its message, as the Basic pair', { code: 'inkpress_bad', message: `echo ${expectedAuth}` }],
    ['its code', { code: 'pä ss:word', message: 'no' }],
  ])('a site repeating the password in %s: none of its words are kept', async (_where, body) => {
    answer = (_request, response) => json(response, 422, body);
    const error = await failureOf(client.createPost(site(), minimalPost()));
    if (body.code === 'inkpress_bad') {
      expect(error.message).toContain("(the site's message repeated the site password and is not shown)");
    }
    expect(`${error.message} ${error.code}`).not.toContain('pä ss:word');
    expect(`${error.message} ${error.code}`).not.toContain(expectedAuth.slice(6));
    // The plugin's own code stays (publishing acts on it); any other is dropped.
    expect(error.code).toBe(body.code === 'inkpress_bad' ? 'inkpress_bad' : undefined);
  });

  it.each([
    // PHP's json_encode escapes `/` and every non-ASCII letter.
    [
      'JSON-escaped as PHP writes it',
      String.raw`{"code":"rest_invalid_param","message":"Invalid parameter(s): password Caf\u00e9\/pass-2024x"}`,
    ],
    [
      'split by tags',
      '{"code":"rest_invalid_param","message":"Invalid password <b>Caf\u00e9<i></i>/pass-2024x</b>"}',
    ],
    [
      'split by a comment',
      '{"code":"rest_invalid_param","message":"Invalid password Caf&eacute;<!-- -->/pass-2024x"}',
    ],
    ['URL-encoded', '{"code":"rest_invalid_param","message":"Invalid password Caf%C3%A9%2Fpass-2024x"}'],
  ])('a site repeating the password %s: none of its words are kept', async (_how, body) => {
    const password = 'Café/pass-2024x';
    answer = (_request, response) =>
      response.writeHead(400, { 'Content-Type': 'application/json; charset=UTF-8' }).end(body);
    for (const call of [
      () => client.categories({ ...site(), password }),
      () => client.createPost({ ...site(), password }, minimalPost()),
    ]) {
      const error = await failureOf(call());
      expect(error.message).toContain("(the site's message repeated the site password and is not shown)");
      expect(error.message).not.toMatch(/pass-2024x/);
    }
  });

  it.each([
    ['with a stray % elsewhere', 'Invalid password Caf%C3%A9%2Fpass-2024x (100% sure)', 'Café/pass-2024x'],
    ['form-encoded', 'Invalid password my+secret+pw', 'my secret pw'],
  ])(
    'a site repeating the password URL-encoded %s: none of its words are kept',
    async (_how, message, password) => {
      answer = (_request, response) => json(response, 400, { code: 'rest_invalid_param', message });
      const error = await failureOf(client.categories({ ...site(), password }));
      expect(error.message).toContain("(the site's message repeated the site password and is not shown)");
    },
  );

  it('a message without the password is shown, stray % and + included', async () => {
    answer = (_request, response) =>
      json(response, 400, { code: 'rest_invalid_param', message: 'Invalid page (100% sure) a+b %ZZ' });
    const error = await failureOf(client.categories({ ...site(), password: 'Café/pass-2024x' }));
    expect(error.message).toContain('Invalid page (100% sure) a+b %ZZ');
  });

  it('a redirect to an address holding the password: the error does not repeat it', async () => {
    // A Location whose scheme is the password: "redirected to a secret-pass: address".
    answer = (_request, response) => response.writeHead(302, { Location: 'secret-pass:x' }).end();
    const error = await failureOf(client.status({ ...site(), password: 'secret-pass' }));
    expect(error.message).toBe(
      'The site redirected to an address that repeats the site password (not shown)',
    );
  });

  it('a short password found in a message by chance is no echo: the diagnosis and code stay', async () => {
    const shortPassword = { ...site(), password: 'category' };
    answer = (_request, response) =>
      json(response, 422, { code: 'inkpress_unknown_category', message: 'Unknown category 7.' });
    const error = await failureOf(client.createPost({ ...shortPassword, password: 'e' }, minimalPost()));
    expect(error).toMatchObject({ reason: 'invalid_request', code: 'inkpress_unknown_category' });
    expect(error.message).toContain('Unknown category 7.');
    // A password as long as a code word is looked for, but the plugin's code still stays.
    const echoed = await failureOf(client.createPost(shortPassword, minimalPost()));
    expect(echoed.code).toBe('inkpress_unknown_category');
  });

  it('a 413 from whoever answers (HTML of the web server) -> invalid_request: the same post is refused again', async () => {
    answer = (_request, response) =>
      response.writeHead(413, { 'Content-Type': 'text/html' }).end('<h1>413 Request Entity Too Large</h1>');
    const error = await failureOf(client.createPost(site(), minimalPost()));
    expect(error).toMatchObject({ reason: 'invalid_request', httpStatus: 413 });
    expect(error.message).toBe(
      "The site refused the post as too large (413): raise the web server's request size limit, then retry",
    );
  });

  it('a JSON 400 without a WordPress or plugin code (a proxy) is not the plugin rejecting the post', async () => {
    answer = (_request, response) => json(response, 400, { message: 'Bad Request' });
    const error = await failureOf(client.createPost(site(), minimalPost()));
    expect(error.reason).toBe('unreachable');
  });

  /** The site at 127.0.0.1 redirects (308) to the same port on localhost, another host, which answers `there`. */
  const redirectedToLocalhost =
    (there: (response: ServerResponse) => void) => (request: IncomingMessage, response: ServerResponse) => {
      if (request.headers.host?.startsWith('127.0.0.1')) {
        response
          .writeHead(308, { Location: `${baseUrl.replace('127.0.0.1', 'localhost')}${request.url}` })
          .end();
        return;
      }
      there(response);
    };

  it('a refusal after a redirect to another host (where the login is not sent) -> unreachable, not a refused login', async () => {
    answer = redirectedToLocalhost((response) =>
      json(response, 401, { code: 'inkpress_login_failed', data: { status: 401 } }),
    );
    const error = await failureOf(client.status(site()));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toMatch(/redirected to http:\/\/localhost:\d+, where the login is not sent/);
    expect(seen.map((request) => request.inkpressAuthorization)).toEqual([expectedAuth, undefined]);
  });

  it('an HTML refusal after a redirect to another host says so, not that a firewall may block Inkpress', async () => {
    answer = redirectedToLocalhost((response) =>
      response.writeHead(403, { 'Content-Type': 'text/html' }).end('<h1>Forbidden</h1>'),
    );
    const error = await failureOf(client.status(site()));
    expect(error.message).toMatch(/redirected to http:\/\/localhost:\d+, where the login is not sent/);
  });

  it('looks for JSON inside other output with bounded work: a hostile body is parsed at most three times its length', async () => {
    const hostile = `${'{"a":'.repeat(10)}\n{${'{},'.repeat(200_000)}{}]\n<b>x</b>}${' }\n'.repeat(5)}`;
    answer = (_request, response) =>
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(hostile);
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const large = new WordPressClient({ ...policy, maxResponseBytes: 2 * hostile.length });
      const error = await failureOf(large.status(site()));
      expect(error.message).toBe('The site answered 200 with application/json that is not valid JSON');
      const parsed = parse.mock.calls.reduce((sum, [text]) => sum + String(text).length, 0);
      expect(parsed).toBeLessThanOrEqual(3 * hostile.length);
    } finally {
      parse.mockRestore();
    }
  });

  it('a JSON content type whose body holds no JSON -> unreachable, saying the body is not valid JSON', async () => {
    answer = (_request, response) =>
      response.writeHead(201, { 'Content-Type': 'application/json' }).end('<b>Fatal error</b>: {oops');
    const error = await failureOf(client.status(site()));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toBe('The site answered 201 with application/json that is not valid JSON');
  });

  it('paused logins (429 inkpress_throttled) -> throttled, with the Retry-After seconds', async () => {
    answer = (_request, response) =>
      response
        .writeHead(429, { 'Content-Type': 'application/json; charset=UTF-8', 'Retry-After': '873' })
        .end(JSON.stringify({ code: 'inkpress_throttled', data: { status: 429, retry_after: 873 } }));
    const error = await failureOf(client.status(site()));
    expect(error).toMatchObject({ reason: 'throttled', httpStatus: 429, retryAfterSeconds: 873 });
  });

  it.each(['99999999999999999999', '86401', 'Wed, 21 Oct 2099 07:28:00 GMT'])(
    'paused logins with a Retry-After of %s: the site did not say until when',
    async (retryAfter) => {
      answer = (_request, response) =>
        response
          .writeHead(429, { 'Content-Type': 'application/json; charset=UTF-8', 'Retry-After': retryAfter })
          .end(JSON.stringify({ code: 'inkpress_login_throttled' }));
      const error = await failureOf(client.status(site()));
      expect(error).toMatchObject({ reason: 'throttled', httpStatus: 429 });
      expect(error.retryAfterSeconds).toBeUndefined();
    },
  );

  it.each([
    ['HTML with 200 (a page where JSON was expected)', 200, 'text/html; charset=UTF-8', '<html>Home</html>'],
    ['HTML with 404 (REST broken)', 404, 'text/html', '<html>Not found</html>'],
    ['HTML with 500 (database down)', 500, 'text/html', '<h1>Error establishing a database connection</h1>'],
    ['a 502 from a proxy', 502, 'text/plain', 'Bad gateway'],
    ['broken JSON', 200, 'application/json', '{"user":'],
  ])('%s -> unreachable', async (_label, status, contentType, body) => {
    answer = (_request, response) => response.writeHead(status, { 'Content-Type': contentType }).end(body);
    const error = await failureOf(client.categories(site()));
    expect(error.reason).toBe('unreachable');
    expect(error.httpStatus).toBe(status);
  });

  it.each([
    [404, 'text/html', false],
    [429, 'text/html', true],
    [451, 'text/html', true],
    [401, 'text/plain', true],
    [400, 'text/html', false],
  ])('an HTML %i gets the firewall hint: %s -> %s', async (status, contentType, hinted) => {
    answer = (_request, response) => response.writeHead(status, { 'Content-Type': contentType }).end('No.');
    const error = await failureOf(client.categories(site()));
    expect(error.message.includes('a firewall or security plugin')).toBe(hinted);
  });

  it.each([403, 406])(
    'an HTML %i (a firewall) -> unreachable, saying what may block Inkpress',
    async (status) => {
      answer = (_request, response) =>
        response.writeHead(status, { 'Content-Type': 'text/html' }).end('<h1>Access denied</h1>');
      const error = await failureOf(client.categories(site()));
      expect(error).toMatchObject({ reason: 'unreachable', httpStatus: status });
      expect(error.message).toBe(
        `The site answered ${status} with text/html instead of JSON: a firewall or security plugin in front of WordPress may be blocking Inkpress (allow requests to /?rest_route=/inkpress/v1/)`,
      );
    },
  );

  it("a firewall's challenge page -> unreachable, and what answered named as the doctor's probe names it", async () => {
    answer = (_request, response) =>
      response
        .writeHead(403, {
          'Content-Type': 'text/html; charset=UTF-8',
          Server: 'cloudflare',
          'CF-RAY': '8f1c-CDG',
        })
        .end('<!DOCTYPE html><html><head><title>Just a moment...</title></head><body></body></html>');
    const error = await failureOf(client.categories(site()));
    expect(error).toMatchObject({
      reason: 'unreachable',
      obstacle: { kind: 'challenge', status: 403, vendor: 'Cloudflare' },
    });
  });

  it('a timeout -> unreachable', async () => {
    answer = () => undefined;
    const error = await failureOf(client.status(site()));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toMatch(/in time/);
    expect(error.obstacle).toEqual({ kind: 'timeout', detail: error.message });
    // Connected: the request went out, so what it did on the site is unknown.
    expect(error).not.toBeInstanceOf(CmsNotSentError);
  });

  it('a refused connection -> unreachable, and known not to have reached the site', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failureOf(client.status({ ...site(), url: `http://127.0.0.1:${port}` }));
    expect(error.reason).toBe('unreachable');
    expect(error.httpStatus).toBeUndefined();
    expect(error).toBeInstanceOf(CmsNotSentError);
  });

  it.each([
    ['a malformed Location', 'http://exa mple.com/', /redirected to an invalid address/],
    ['a Location with a non-http scheme', 'ftp://example.com/file', /redirected to a ftp: address/],
  ])('a redirect with %s -> unreachable', async (_label, location, message) => {
    answer = (_request, response) => response.writeHead(302, { Location: location }).end();
    const error = await failureOf(client.status(site()));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toMatch(message);
    expect(seen).toHaveLength(1);
  });

  it('a dropped connection -> unreachable', async () => {
    answer = (request) => request.socket.destroy();
    const error = await failureOf(client.status(site()));
    expect(error.reason).toBe('unreachable');
    expect(error).not.toBeInstanceOf(CmsNotSentError);
  });

  it('a failed TLS handshake -> unreachable, and known not to have reached the site', async () => {
    // https to a plain HTTP server: the handshake fails, no request is written.
    const error = await failureOf(client.status({ ...site(), url: baseUrl.replace('http://', 'https://') }));
    expect(error.reason).toBe('unreachable');
    expect(error).toBeInstanceOf(CmsNotSentError);
    expect(seen).toEqual([]);
  });

  it('a failure after a redirect -> the request may have reached the site (the first server answered)', async () => {
    answer = (_request, response) => response.writeHead(307, { Location: '/blog/again' }).end();
    const error = await failureOf(client.status(site()));
    expect(error.message).toMatch(/More than 3 redirects/);
    expect(error).not.toBeInstanceOf(CmsNotSentError);
    answer = (_request, response) => response.writeHead(307, { Location: 'ftp://example.com/x' }).end();
    expect(await failureOf(client.status(site()))).not.toBeInstanceOf(CmsNotSentError);
  });

  it('a redirect to a private address -> unreachable, saying the site redirects there (the url itself is fine)', async () => {
    const deployed = new WordPressClient({
      ...policy,
      allowPrivate: false,
      isAllowedAddress: (address) => address === '127.0.0.1',
    });
    answer = (_request, response) =>
      response.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end();
    const error = await failureOf(deployed.status(site()));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toMatch(
      /^The site redirects to an address Inkpress does not call \(.*169\.254\.169\.254 is a private, loopback, link-local or reserved address\)$/,
    );
  });

  it('a private address when private addresses are not allowed -> blocked, before any request', async () => {
    const guarded = new WordPressClient({ ...policy, allowPrivate: false });
    const error = await failureOf(guarded.status(site()));
    expect(error.reason).toBe('blocked');
    expect(error).toBeInstanceOf(CmsNotSentError);
    expect(seen).toEqual([]);
  });
});
