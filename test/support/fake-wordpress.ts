/**
 * A stand-in for a WordPress site running the Inkpress Connector plugin (1.4), on 127.0.0.1:
 * the plugin routes (`?rest_route=/inkpress/v1/status|categories|posts|posts/<uuid>`) with the
 * plugin's authentication (one 401 for every refused login: unknown user, wrong password, no
 * role, a role with more power; 429 with Retry-After after 5 failures for one user name within
 * 15 minutes, whatever the password), error codes and idempotent post creation per user from
 * the structured post (stored like the plugin stores it: text escaped, shortcodes inert; with
 * the plugin's read-back), a web application firewall that refuses bodies with `<!--`, plus switches
 * to make the site misbehave (no plugin, HTML answers, server errors, redirects, plugin errors,
 * down).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUser {
  password: string;
  roles: string[];
  /** Application passwords: the plugin takes them like the password, and WordPress core's routes take only these. */
  appPasswords?: string[];
}

export interface FakeCategory {
  id: number;
  name: string;
  slug: string;
  parent: number;
}

export interface FakePost {
  id: number;
  /** Login of the user who created it: idempotency is per user, like the plugin's. */
  author: string;
  article_uuid: string;
  title: string;
  /**
   * The post as the plugin stores it, without block comments: intro, sections and FAQ, their
   * text escaped and every `[`/`]` as `&#091;`/`&#093;`.
   */
  content: string;
  status: string;
  slug: string;
  date_gmt: string;
  category_ids: number[];
  /** The structured post and SEO fields as Inkpress sent them. */
  sections: { heading: string; html: string }[];
  faq: { heading: string; items: { question: string; answer: string }[] } | null;
  meta_description: string | null;
  focus_keyword: string | null;
  excerpt: string | null;
  tags: string[];
  language: string | null;
  /**
   * The link check of plugin 1.5 (only with an index): links to the site kept and dropped, and
   * (1.5.2+) the URLs of those dropped, as sent.
   */
  links?: { kept: number; dropped: number; droppedUrls: string[] };
}

/** A post or page as the plugin's index route (1.5) lists it. */
export interface FakeIndexPost {
  id: number;
  status: string;
  title: string;
  link: string;
  excerpt: string;
  focus_keyword: string;
  categories: string[];
  modified_gmt: string;
  noindex: boolean;
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
  /** Posts by `<author login>|<article uuid>`. */
  posts: Map<string, FakePost>;
  mode: FakeMode;
  /** When set, every request is answered `302 Location: <this>` (e.g. a malformed address). */
  redirectLocation: string | undefined;
  /** When set, the next `POST posts` stores the post and then cuts the connection (the answer is lost). */
  dropNextPostAnswer: boolean;
  /** When set, `POST posts` fails with this plugin error after a successful login. */
  postFailure: { status: number; code: string } | undefined;
  /**
   * Failed login times (ms) by `<site path>|<lower-cased user name>`: each path of the fake
   * counts as a site of its own (and every client is 127.0.0.1).
   */
  failedLogins: Map<string, number[]>;
  requests: FakeRequest[];
  /** When set, requests are answered only once this settles (a slow site). */
  answerAfter: Promise<unknown> | undefined;
  /** Requests received, counted on arrival (before any `answerAfter` wait). */
  arrivals: number;
  /** How far the site's clock is ahead of ours (ms): a scheduled post is due on a read once `date_gmt` is past it. */
  clockAheadMs: number;
  /** The plugin's version (its probe route and status say it). */
  pluginVersion: string;
  /**
   * What the status route sends as `timezone` (the plugin's `wp_timezone_string()`: an IANA name,
   * or `+02:00` for a manual offset); undefined: none sent. Any JSON value, as a hostile site could.
   */
  timezone: unknown;
  /** Whether the plugin has the probe route (1.5.0 and later); without it the namespace index still answers. */
  probeRoute: boolean;
  /** A host or proxy that removes these request headers before WordPress sees them. */
  strippedHeaders: ('authorization' | 'x-inkpress-authorization')[];
  /**
   * The site's posts for the index route of plugin 1.5 (`GET index`); undefined: the plugin is
   * older and has no such route.
   */
  index: FakeIndexPost[] | undefined;
  /** Stops listening (the site is down: connections are refused). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const EDITOR_ROLE = 'inkpress_editor';
/** Roles holding capabilities beyond the Inkpress Editor role (unfiltered_html and more). */
const TOO_POWERFUL_ROLES = ['administrator', 'editor'];
const ADMIN_CAPABILITIES = {
  edit_posts: true,
  publish_posts: true,
  unfiltered_html: true,
  manage_options: true,
  edit_users: true,
  install_plugins: true,
  activate_plugins: true,
};
const MAX_FAILURES = 5;
const FAILURE_WINDOW_MS = 15 * 60_000;

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
    index: undefined,
    clockAheadMs: 0,
    pluginVersion: '1.5.0',
    timezone: undefined,
    probeRoute: true,
    strippedHeaders: [],
    dropNextPostAnswer: false,
    mode: 'ok',
    redirectLocation: undefined,
    postFailure: undefined,
    failedLogins: new Map(),
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

  /** A request header as WordPress sees it (undefined when the host strips it). */
  function arrived(request: IncomingMessage, name: 'authorization' | 'x-inkpress-authorization') {
    return site.strippedHeaders.includes(name) ? undefined : request.headers[name];
  }

  function credentials(request: IncomingMessage): [string, string] | null {
    return basicOf(arrived(request, 'x-inkpress-authorization') ?? arrived(request, 'authorization'));
  }

  function basicOf(header: string | string[] | undefined): [string, string] | null {
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
    if (route.startsWith('/wp/v2/users/me')) {
      coreUser(request, response);
      return;
    }
    if (site.mode !== 'no_plugin' && (route === '/inkpress/v1' || route === '/inkpress/v1/')) {
      json(response, 200, { namespace: 'inkpress/v1', routes: {} });
      return;
    }
    if (site.mode !== 'no_plugin' && site.probeRoute && route === '/inkpress/v1/probe') {
      // Answered to anyone; the plugin's authentication ignores this route.
      json(response, 200, {
        plugin_version: site.pluginVersion,
        auth_headers: {
          authorization: Boolean(arrived(request, 'authorization')),
          x_inkpress_authorization: Boolean(arrived(request, 'x-inkpress-authorization')),
        },
      });
      return;
    }
    const match = /^\/inkpress\/v1\/(status|categories|posts|index)(?:\/([0-9a-fA-F-]{36}))?$/.exec(route);
    if (site.mode === 'no_plugin' || !match || (match[1] === 'index' && site.index === undefined)) {
      wpError(response, 404, 'rest_no_route', 'No route was found matching the URL and request method.');
      return;
    }

    if (!given) {
      // No login arrived (none sent, or the host stripped both headers): the plugin's permission check
      // answers it like any failed login, without counting a failure.
      wpError(response, 401, 'inkpress_login_failed', 'Login failed.');
      return;
    }
    const user = login(response, url.pathname.replace(/\/+$/, ''), given);
    if (!user) return;

    const endpoint = `${request.method} ${match[1]}${match[2] ? '/<uuid>' : ''}`;
    if (endpoint === 'GET status') {
      json(response, 200, {
        user: { id: 2, login: given[0], roles: user.roles },
        role_ok: true,
        wordpress_version: '6.1.9',
        plugin_version: site.pluginVersion,
        php_version: '8.2.0',
        ...(site.timezone !== undefined ? { timezone: site.timezone } : {}),
      });
    } else if (endpoint === 'GET categories') {
      json(response, 200, { categories: site.categories });
    } else if (endpoint === 'POST posts' && site.postFailure) {
      wpError(response, site.postFailure.status, site.postFailure.code, 'The plugin could not do this now.');
    } else if (endpoint === 'POST posts') {
      createPost(response, body, given[0]);
    } else if (endpoint === 'GET index') {
      listIndex(response, url.searchParams);
    } else if (endpoint === 'GET posts/<uuid>') {
      readPost(response, String(match[2]).toLowerCase(), given[0]);
    } else {
      wpError(response, 404, 'rest_no_route', 'No route was found matching the URL and request method.');
    }
  }

  /** The plugin's index route: published posts, newest modification first; `modified_after` adds the others. */
  function listIndex(response: ServerResponse, params: URLSearchParams) {
    const perPage = Number(params.get('per_page') ?? 100);
    const page = Number(params.get('page') ?? 1);
    const after = params.get('modified_after');
    const listed = (site.index ?? [])
      .filter((post) => (after ? post.modified_gmt >= after : post.status === 'publish'))
      .sort((a, b) =>
        a.modified_gmt === b.modified_gmt ? b.id - a.id : a.modified_gmt < b.modified_gmt ? 1 : -1,
      );
    const posts = listed
      .slice((page - 1) * perPage, page * perPage)
      .map((post) => (post.status === 'publish' ? post : { id: post.id, status: post.status }));
    json(response, 200, {
      posts,
      page,
      per_page: perPage,
      total: listed.length,
      total_pages: Math.ceil(listed.length / perPage),
    });
  }

  /** The user the credentials log in as, or undefined once the refusal was answered. */
  function login(
    response: ServerResponse,
    sitePath: string,
    [name, password]: [string, string],
  ): FakeUser | undefined {
    const key = `${sitePath}|${name.toLowerCase()}`;
    const now = Date.now();
    const recent = (site.failedLogins.get(key) ?? []).filter((time) => time > now - FAILURE_WINDOW_MS);
    if (recent.length >= MAX_FAILURES) {
      const retryAfter = Math.max(
        1,
        Math.ceil(((recent.at(-MAX_FAILURES) ?? now) + FAILURE_WINDOW_MS - now) / 1000),
      );
      response
        .writeHead(429, {
          'Content-Type': 'application/json; charset=UTF-8',
          'Retry-After': String(retryAfter),
        })
        .end(
          JSON.stringify({
            code: 'inkpress_throttled',
            message: 'Too many failed logins for this user from this address; try again later.',
            data: { status: 429, retry_after: retryAfter },
          }),
        );
      return undefined;
    }
    const user = site.users.get(name);
    const allowed =
      (user?.password === password || user?.appPasswords?.includes(password) === true) &&
      user.roles.includes(EDITOR_ROLE) &&
      !user.roles.some((role) => TOO_POWERFUL_ROLES.includes(role));
    if (!user || !allowed) {
      site.failedLogins.set(key, [...recent, now]);
      wpError(
        response,
        401,
        'inkpress_login_failed',
        'Login failed: check the user name, the password, and that the user has only the Inkpress Editor role.',
      );
      return undefined;
    }
    site.failedLogins.delete(key);
    return user;
  }

  /**
   * WordPress core's `users/me?context=edit`: only application passwords, only from the
   * Authorization header; its own error codes (which tell a wrong password from an unknown user).
   */
  function coreUser(request: IncomingMessage, response: ServerResponse) {
    const given = basicOf(arrived(request, 'authorization'));
    const user = given ? site.users.get(given[0]) : undefined;
    if (!given || !user) {
      wpError(response, 401, given ? 'invalid_username' : 'rest_not_logged_in', 'Not logged in.');
      return;
    }
    if (!user.appPasswords?.includes(given[1])) {
      wpError(
        response,
        401,
        'incorrect_password',
        'The provided password is an invalid application password.',
      );
      return;
    }
    const capabilities: Record<string, boolean> = { read: true };
    for (const role of user.roles) {
      if (role === 'administrator') Object.assign(capabilities, ADMIN_CAPABILITIES);
      if (role === 'editor')
        Object.assign(capabilities, { edit_posts: true, publish_posts: true, unfiltered_html: true });
      if (role === EDITOR_ROLE || role === 'author')
        Object.assign(capabilities, { edit_posts: true, publish_posts: true });
      capabilities[role] = true;
    }
    json(response, 200, { id: 2, username: given[0], slug: given[0], roles: user.roles, capabilities });
  }

  function createPost(response: ServerResponse, body: string, author: string) {
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
    const existing = site.posts.get(`${author}|${uuid}`);
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
    // Plugin 1.5: a link to a post of this site that is not published (any more) is dropped, its text kept.
    const links = { kept: 0, dropped: 0, droppedUrls: [] as string[] };
    if (site.index !== undefined) {
      const meant = new Map(
        (Array.isArray(input.internal_links)
          ? (input.internal_links as { url: string; post_id: number }[])
          : []
        ).map((link) => [link.url, link.post_id]),
      );
      const host = new URL(site.url).host;
      const check = (html: string) =>
        html.replace(/<a href="([^"]*)">([\s\S]*?)<\/a>/g, (whole, href: string, inner: string) => {
          const url = href.replace(/&amp;/g, '&');
          let linkHost: string;
          try {
            linkHost = new URL(url, site.url).host;
          } catch {
            return whole;
          }
          if (linkHost !== host) return whole;
          const id = meant.get(url) ?? site.index?.find((entry) => entry.link === url)?.id;
          if (site.index?.some((entry) => entry.id === id && entry.status === 'publish')) {
            links.kept++;
            return whole;
          }
          links.dropped++;
          links.droppedUrls.push(url);
          return inner;
        });
      input.intro_html = check(String(input.intro_html ?? ''));
      for (const section of sections) section.html = check(section.html);
    }
    // Like the plugin: headings, questions and answers are text (escaped), and no bracket
    // anywhere in the stored post can start a shortcode.
    const content = neutraliseShortcodes(
      [
        String(input.intro_html ?? ''),
        ...sections.map((section) => `<h2>${escapeText(section.heading)}</h2>\n${section.html}`),
        ...(faq
          ? [
              `<h2>${escapeText(faq.heading)}</h2>`,
              ...faq.items.map(
                (item) => `<h3>${escapeText(item.question)}</h3>\n<p>${escapeText(item.answer)}</p>`,
              ),
            ]
          : []),
      ].join('\n'),
    );
    const post: FakePost = {
      id: nextPostId++,
      author,
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
      ...(site.index !== undefined ? { links } : {}),
    };
    site.posts.set(`${author}|${uuid}`, post);
    if (site.dropNextPostAnswer) {
      site.dropNextPostAnswer = false;
      response.socket?.destroy();
      return;
    }
    json(response, 201, postResponse(post, true));
  }

  /** Plugin 1.4's read: the user's post for the article; a scheduled one whose time passed is made live. */
  function readPost(response: ServerResponse, uuid: string, author: string) {
    const post = site.posts.get(`${author}|${uuid}`);
    if (!post) {
      wpError(response, 404, 'inkpress_post_not_found', 'This user has no post for this article.');
      return;
    }
    if (post.status === 'future' && Date.parse(post.date_gmt) <= Date.now() + site.clockAheadMs) {
      post.status = 'publish';
    }
    json(response, 200, postResponse(post, false));
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
        ...(post.links
          ? {
              internal_links_kept: post.links.kept,
              internal_links_dropped: post.links.dropped,
              // Plugin 1.5.2+ names the links it dropped.
              ...(site.pluginVersion.localeCompare('1.5.2', 'en', { numeric: true }) >= 0
                ? { internal_links_dropped_urls: post.links.droppedUrls }
                : {}),
            }
          : {}),
      },
    };
  }

  await site.start();
  Object.defineProperty(site, 'url', { value: `http://127.0.0.1:${port}` });
  return site;
}

/** Text as HTML character data, as the plugin writes it into a block (`&`, `<`, `>`). */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The plugin's `neutralise_shortcodes`: brackets as entities (the stored post has no comments here). */
function neutraliseShortcodes(html: string): string {
  return html.replace(/\[/g, '&#091;').replace(/\]/g, '&#093;');
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
