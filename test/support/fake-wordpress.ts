/**
 * A stand-in for a WordPress site running the Inkpress Connector plugin, on 127.0.0.1: the
 * three plugin routes (`?rest_route=/inkpress/v1/status|categories|posts`) with the plugin's
 * authentication, error codes and idempotent post creation from the structured post (with the
 * plugin's read-back), a web application firewall that refuses bodies with `<!--`, plus switches
 * to make the site misbehave (no plugin, HTML answers, server errors, redirects, plugin errors,
 * down).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUser {
  password: string;
  roles: string[];
}

export interface FakeCategory {
  id: number;
  name: string;
  slug: string;
  parent: number;
}

export interface FakePost {
  id: number;
  article_uuid: string;
  title: string;
  /** The HTML the plugin would turn into blocks: intro, sections and FAQ (no block comments here). */
  content: string;
  status: string;
  slug: string;
  date_gmt: string;
  category_ids: number[];
  sections: { heading: string; html: string }[];
  faq: { heading: string; items: { question: string; answer: string }[] } | null;
  meta_description: string | null;
  focus_keyword: string | null;
  excerpt: string | null;
  tags: string[];
  language: string | null;
}

/** `ok`: the plugin answers; the others simulate a broken or foreign site. */
export type FakeMode = 'ok' | 'no_plugin' | 'html' | 'server_error';

export interface FakeRequest {
  method: string;
  route: string;
  login: string | null;
}

export interface FakeWordPress {
  /** Base URL of the site (no trailing slash). */
  readonly url: string;
  users: Map<string, FakeUser>;
  categories: FakeCategory[];
  /** Posts by article uuid. */
  posts: Map<string, FakePost>;
  mode: FakeMode;
  /** When set, every request is answered `302 Location: <this>` (e.g. a malformed address). */
  redirectLocation: string | undefined;
  /** When set, `POST posts` fails with this plugin error after a successful login. */
  postFailure: { status: number; code: string } | undefined;
  requests: FakeRequest[];
  /** When set, requests are answered only once this settles (a slow site). */
  answerAfter: Promise<unknown> | undefined;
  /** Requests received, counted on arrival (before any `answerAfter` wait). */
  arrivals: number;
  /** Stops listening (the site is down: connections are refused). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const EDITOR_ROLE = 'inkpress_editor';

export async function startFakeWordPress(): Promise<FakeWordPress> {
  let nextPostId = 100;
  let server: Server | undefined;
  let port = 0;

  const site: FakeWordPress = {
    url: '',
    users: new Map([['inkpress', { password: 'correct horse battery', roles: [EDITOR_ROLE] }]]),
    categories: [
      { id: 1, name: 'Uncategorized', slug: 'uncategorized', parent: 0 },
      { id: 7, name: 'Recipes', slug: 'recipes', parent: 0 },
      { id: 9, name: 'Desserts', slug: 'desserts', parent: 7 },
    ],
    posts: new Map(),
    mode: 'ok',
    redirectLocation: undefined,
    postFailure: undefined,
    requests: [],
    answerAfter: undefined,
    arrivals: 0,
    stop: async () => {
      const current = server;
      server = undefined;
      if (!current) return;
      current.closeAllConnections();
      await new Promise((resolve) => current.close(resolve));
    },
    start: async () => {
      if (server) return;
      server = createServer((request, response) => {
        site.arrivals += 1;
        readBody(request).then(async (body) => {
          await site.answerAfter;
          handle(request, response, body);
        });
      });
      await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    },
    close: async () => site.stop(),
  };

  function json(response: ServerResponse, status: number, body: unknown) {
    response
      .writeHead(status, { 'Content-Type': 'application/json; charset=UTF-8' })
      .end(JSON.stringify(body));
  }

  function wpError(response: ServerResponse, status: number, code: string, message: string) {
    json(response, status, { code, message, data: { status } });
  }

  function credentials(request: IncomingMessage): [string, string] | null {
    const header = request.headers['x-inkpress-authorization'] ?? request.headers.authorization;
    const match = /^Basic\s+(\S+)$/i.exec(String(header ?? ''));
    if (!match?.[1]) return null;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? null : [decoded.slice(0, colon), decoded.slice(colon + 1)];
  }

  function handle(request: IncomingMessage, response: ServerResponse, body: string) {
    const url = new URL(request.url ?? '/', 'http://fake');
    const route = url.searchParams.get('rest_route') ?? url.pathname;
    const given = credentials(request);
    site.requests.push({ method: request.method ?? '', route, login: given?.[0] ?? null });

    if (site.redirectLocation !== undefined) {
      response.writeHead(302, { Location: site.redirectLocation }).end();
      return;
    }
    if (site.mode === 'html') {
      response
        .writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' })
        .end('<html><body>Blog</body></html>');
      return;
    }
    if (site.mode === 'server_error') {
      response
        .writeHead(500, { 'Content-Type': 'text/html; charset=UTF-8' })
        .end('<h1>Error establishing a database connection</h1>');
      return;
    }
    const match = /^\/inkpress\/v1\/(status|categories|posts)$/.exec(route);
    if (site.mode === 'no_plugin' || !match) {
      wpError(response, 404, 'rest_no_route', 'No route was found matching the URL and request method.');
      return;
    }

    const user = given ? site.users.get(given[0]) : undefined;
    if (!given || !user || user.password !== given[1]) {
      wpError(response, 401, 'inkpress_invalid_login', 'Unknown user name or wrong password.');
      return;
    }
    if (!user.roles.includes(EDITOR_ROLE)) {
      wpError(response, 403, 'inkpress_missing_role', 'This user does not have the Inkpress Editor role.');
      return;
    }

    const endpoint = `${request.method} ${match[1]}`;
    if (endpoint === 'GET status') {
      json(response, 200, {
        user: { id: 2, login: given[0], roles: user.roles },
        role_ok: true,
        wordpress_version: '6.1.9',
        plugin_version: '1.0.0',
        php_version: '8.2.0',
      });
    } else if (endpoint === 'GET categories') {
      json(response, 200, { categories: site.categories });
    } else if (endpoint === 'POST posts' && site.postFailure) {
      wpError(response, site.postFailure.status, site.postFailure.code, 'The plugin could not do this now.');
    } else if (endpoint === 'POST posts') {
      createPost(response, body);
    } else {
      wpError(response, 404, 'rest_no_route', 'No route was found matching the URL and request method.');
    }
  }

  function createPost(response: ServerResponse, body: string) {
    if (body.includes('<!--')) {
      // What a web application firewall in front of many sites does with block markup.
      response.writeHead(403, { 'Content-Type': 'text/html; charset=UTF-8' }).end('<h1>Blocked</h1>');
      return;
    }
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body) as Record<string, unknown>;
    } catch {
      wpError(response, 400, 'inkpress_invalid_body', 'Expected a JSON object body.');
      return;
    }
    const uuid = String(input.article_uuid ?? '').toLowerCase();
    if (!/^[0-9a-f-]{36}$/.test(uuid)) {
      wpError(response, 400, 'inkpress_invalid_article_uuid', 'article_uuid is required and must be a UUID.');
      return;
    }
    const status = String(input.status ?? '');
    if (!['publish', 'draft', 'future'].includes(status)) {
      wpError(response, 400, 'inkpress_invalid_status', 'status must be one of publish, draft, future.');
      return;
    }
    if (status === 'future' && !input.date_gmt) {
      wpError(response, 400, 'inkpress_missing_date', 'date_gmt is required when status is future.');
      return;
    }
    const categoryId = input.category_id === undefined ? undefined : Number(input.category_id);
    if (categoryId !== undefined && !site.categories.some((category) => category.id === categoryId)) {
      wpError(response, 422, 'inkpress_unknown_category', 'No category with this id exists on the site.');
      return;
    }
    const existing = site.posts.get(uuid);
    if (existing) {
      json(response, 200, postResponse(existing, false));
      return;
    }
    const title = String(input.title ?? '');
    // Like WordPress, keep non-ASCII slug characters percent-encoded (lower-case hex).
    const slug = (String(input.slug ?? '') || title.toLowerCase().replace(/[^a-z0-9]+/g, '-')).replace(
      /\P{ASCII}+/gu,
      (text) => encodeURIComponent(text).toLowerCase(),
    );
    const sections = Array.isArray(input.sections)
      ? (input.sections as { heading: string; html: string }[])
      : [];
    const faq = (input.faq as FakePost['faq'] | undefined) ?? null;
    const content = [
      String(input.intro_html ?? ''),
      ...sections.map((section) => `<h2>${section.heading}</h2>\n${section.html}`),
      ...(faq
        ? [
            `<h2>${faq.heading}</h2>`,
            ...faq.items.map((item) => `<h3>${item.question}</h3>\n<p>${item.answer}</p>`),
          ]
        : []),
    ].join('\n');
    const post: FakePost = {
      id: nextPostId++,
      article_uuid: uuid,
      title,
      content,
      sections,
      faq,
      meta_description: typeof input.meta_description === 'string' ? input.meta_description : null,
      focus_keyword: typeof input.focus_keyword === 'string' ? input.focus_keyword : null,
      excerpt: typeof input.excerpt === 'string' ? input.excerpt : null,
      tags: Array.isArray(input.tags) ? (input.tags as string[]) : [],
      language: typeof input.language === 'string' ? input.language : null,
      status,
      slug,
      date_gmt: input.date_gmt ? String(input.date_gmt) : `${new Date().toISOString().slice(0, 19)}Z`,
      category_ids: categoryId === undefined ? [1] : [categoryId],
    };
    site.posts.set(uuid, post);
    json(response, 201, postResponse(post, true));
  }

  function postResponse(post: FakePost, created: boolean) {
    return {
      id: post.id,
      link: post.status === 'publish' ? `${site.url}/${post.slug}/` : `${site.url}/?p=${post.id}`,
      status: post.status,
      slug: post.slug,
      date_gmt: post.date_gmt,
      category_ids: post.category_ids,
      article_uuid: post.article_uuid,
      created,
      site: {
        blocks: post.content.match(/<(p|ul|ol|blockquote|h2|h3)[\s>]/g)?.length ?? 0,
        freeform_blocks: 0,
        tags: post.tags,
        excerpt: post.excerpt !== null,
        seo: {
          adapter: 'inkpress',
          meta_description: post.meta_description !== null,
          focus_keyword: post.focus_keyword !== null,
        },
        schema: { printed_by: 'inkpress', types: post.faq ? ['Article', 'FAQPage'] : ['Article'] },
        faq_questions: post.faq?.items.length ?? 0,
      },
    };
  }

  await site.start();
  Object.defineProperty(site, 'url', { value: `http://127.0.0.1:${port}` });
  return site;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => resolve(body));
  });
}
