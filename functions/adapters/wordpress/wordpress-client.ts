/**
 * The CmsClient for WordPress sites running the Inkpress Connector plugin. Every call goes
 * through the SSRF-guarded HTTP layer to `<site>/?rest_route=/inkpress/v1/<route>` (which
 * works with and without pretty permalinks) and every failure becomes a named CmsError.
 */
import * as z from 'zod/mini';
import { safeText } from '../../core/text';
import {
  believedRetryAfter,
  type CmsCallOptions,
  type CmsCategory,
  type CmsClient,
  CmsError,
  CmsNoAnswerError,
  CmsNotSentError,
  type CmsPost,
  type CmsPostResult,
  type CmsStatus,
  isSiteOwnCode,
  type SiteAccess,
} from '../../core/websites/cms-client';
import { repeatsCredentials } from '../../core/websites/credential-echo';
import type { SiteIndexSource } from '../../core/websites/ports';
import type { SiteIndexPage, SiteIndexQuery } from '../../core/websites/site-index';
import { guardedRequest, OutboundError, type OutboundPolicy, type OutboundResponse } from './guarded-http';
import { failureObstacle, jsonIn, pageObstacle } from './site-answers';
import { siteIndexPageOf, siteIndexRoute, siteIndexSchema } from './site-index-page';

const NAMESPACE = 'inkpress/v1';
const USER_AGENT = 'Inkpress/1.0 (+inkpress-connector)';

const integer = () => z.number().check(z.int());

const statusSchema = z.object({
  user: z.object({ id: z.number(), login: z.string(), roles: z.array(z.string()) }),
  wordpress_version: z.string(),
  plugin_version: z.string(),
  // Anything the site sends here is accepted and checked later (a bad zone never fails the login).
  timezone: z.optional(z.unknown()),
});

const categoriesSchema = z.object({
  categories: z.array(z.object({ id: integer(), name: z.string(), slug: z.string(), parent: integer() })),
});

/**
 * A created post, and the plugin's read-back of what the site kept (`site`; plugins before 1.1
 * send none, and a malformed one counts as none). Built on the first publication: functions that
 * only check a login or read categories (the website routes) never build them.
 */
/** Bounds of the plugin's list of dropped internal links (an article has at most 10 of them). */
const MAX_DROPPED_URLS = 10;
const MAX_DROPPED_URL_LENGTH = 2048;

function createdPostSchemas() {
  const keptSchema = z.object({
    blocks: integer(),
    freeform_blocks: integer(),
    tags: z.array(z.string()),
    excerpt: z.boolean(),
    seo: z.object({
      adapter: z.string(),
      meta_description: z.boolean(),
      focus_keyword: z.boolean(),
      // Plugin 1.5.1+: the SEO title went into the SEO plugin.
      title: z.optional(z.boolean()),
    }),
    schema: z.object({ printed_by: z.nullable(z.string()), types: z.array(z.string()) }),
    faq_questions: integer(),
    internal_links_kept: z.optional(integer()),
    internal_links_dropped: z.optional(integer()),
    // Plugin 1.5.2+: which internal links it dropped (their URLs as sent).
    internal_links_dropped_urls: z.optional(z.array(z.string())),
    // Plugin 1.5+: the article's images in the Media Library.
    featured_media_id: z.optional(z.nullable(integer())),
    images_uploaded: z.optional(integer()),
    media: z.optional(z.array(z.object({ slot: z.string(), id: integer(), url: z.string() }))),
  });
  const postSchema = z.object({
    id: integer(),
    link: z.string(),
    status: z.string(),
    slug: z.nullable(z.string()),
    date_gmt: z.nullable(z.string()),
    created: z.boolean(),
    /** The article the post belongs to (plugin 1.0 and later send it). */
    article_uuid: z.optional(z.string()),
    site: z.optional(z.unknown()),
  });
  return { postSchema, keptSchema };
}
let postSchemas: ReturnType<typeof createdPostSchemas> | undefined;
type CreatedPost = z.infer<ReturnType<typeof createdPostSchemas>['postSchema']>;

/** Refusals that come as a page, not the plugin's JSON: a firewall's or security plugin's, as a rule. */
const REFUSED_AS_A_PAGE = new Set([401, 403, 406, 429, 451]);

const wpErrorSchema = z.object({ code: z.string(), message: z.optional(z.string()) });

export class WordPressClient implements CmsClient, SiteIndexSource {
  constructor(private readonly policy: OutboundPolicy) {}

  async status(site: SiteAccess, options?: CmsCallOptions): Promise<CmsStatus> {
    const body = await this.call(site, 'GET', 'status', statusSchema, undefined, options);
    return {
      userLogin: body.user.login,
      roles: body.user.roles,
      cmsVersion: body.wordpress_version,
      pluginVersion: body.plugin_version,
      ...(typeof body.timezone === 'string' ? { timezone: body.timezone } : {}),
    };
  }

  async categories(site: SiteAccess, options?: CmsCallOptions): Promise<CmsCategory[]> {
    const body = await this.call(site, 'GET', 'categories', categoriesSchema, undefined, options);
    return body.categories.map((category) => ({
      cmsId: String(category.id),
      name: category.name,
      slug: category.slug,
      ...(category.parent > 0 ? { parentCmsId: String(category.parent) } : {}),
    }));
  }

  async createPost(site: SiteAccess, post: CmsPost): Promise<CmsPostResult> {
    postSchemas ??= createdPostSchemas();
    const body = await this.call(site, 'POST', 'posts', postSchemas.postSchema, {
      article_uuid: post.articleUuid,
      title: post.title,
      status: post.status,
      ...(post.slug ? { slug: post.slug } : {}),
      ...(post.dateGmt ? { date_gmt: toWordPressDate(post.dateGmt) } : {}),
      ...(post.categoryCmsId ? { category_id: Number(post.categoryCmsId) } : {}),
      language: post.language,
      intro_html: post.introHtml,
      sections: post.sections.map((section) => ({ heading: section.heading, html: section.html })),
      ...(post.faq ? { faq: post.faq } : {}),
      ...(post.sources ? { sources: post.sources } : {}),
      ...(post.metaDescription ? { meta_description: post.metaDescription } : {}),
      ...(post.focusKeyword ? { focus_keyword: post.focusKeyword } : {}),
      ...(post.excerpt ? { excerpt: post.excerpt } : {}),
      tags: post.tags,
      ...(post.internalLinks?.length
        ? {
            internal_links: post.internalLinks.map((link) => ({
              url: link.url,
              post_id: Number(link.postId),
            })),
          }
        : {}),
      // The image bytes travel in the request: the site never fetches a URL.
      ...(post.images && post.images.length > 0
        ? {
            images: post.images.map((image) => ({
              slot: image.slot,
              mime_type: image.mimeType,
              alt: image.alt,
              ...(image.afterSection !== undefined ? { after_section: image.afterSection } : {}),
              data: image.bytes.toString('base64'),
            })),
          }
        : {}),
    });
    return postResultOf(body, site, post.articleUuid);
  }

  async readPost(site: SiteAccess, articleUuid: string): Promise<CmsPostResult | undefined> {
    postSchemas ??= createdPostSchemas();
    try {
      const body = await this.call(site, 'GET', `posts/${articleUuid}`, postSchemas.postSchema);
      return postResultOf(body, site, articleUuid);
    } catch (error) {
      // The plugin's answer when this user made no post for the article (deleted for good on the site).
      if (error instanceof CmsError && error.code === 'inkpress_post_not_found') return undefined;
      throw error;
    }
  }

  /** One page of the site's index (plugin 1.5); undefined when the plugin has no index route. */
  async indexPage(site: SiteAccess, query: SiteIndexQuery): Promise<SiteIndexPage | undefined> {
    try {
      const body = await this.call(site, 'GET', siteIndexRoute(query), siteIndexSchema());
      return siteIndexPageOf(body, site.url);
    } catch (error) {
      if (error instanceof CmsError && error.code === 'rest_no_route') return undefined;
      throw error;
    }
  }

  private async call<T extends z.ZodMiniType>(
    site: SiteAccess,
    method: 'GET' | 'POST',
    route: string,
    schema: T,
    payload?: unknown,
    options: CmsCallOptions = {},
  ): Promise<z.infer<T>> {
    const encoded = Buffer.from(`${site.login}:${site.password}`, 'utf8').toString('base64');
    const credentials = `Basic ${encoded}`;
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': USER_AGENT,
      Authorization: credentials,
      'X-Inkpress-Authorization': credentials,
    };
    if (payload !== undefined) headers['Content-Type'] = 'application/json; charset=utf-8';
    let response: OutboundResponse;
    try {
      response = await guardedRequest(
        {
          method,
          url: `${site.url.replace(/\/+$/, '')}/?rest_route=/${NAMESPACE}/${route}`,
          headers,
          ...(payload === undefined ? {} : { body: wafSafeJson(payload) }),
        },
        boundedPolicy(this.policy, options.timeoutMs),
      );
    } catch (error) {
      if (error instanceof OutboundError) {
        // Blocked after a redirect: the site, not the registered address, points somewhere refused.
        const redirectedThere = error.failure === 'blocked' && error.requestSent;
        const reason = error.failure === 'blocked' && !redirectedThere ? 'blocked' : 'unreachable';
        // The message may name where the site redirected to, which the site chose.
        const message = repeatsCredentials(error.message, site)
          ? 'The site redirected to an address that repeats the site password (not shown)'
          : redirectedThere
            ? `The site redirects to an address Inkpress does not call (${error.message})`
            : error.message;
        const failed = !error.requestSent
          ? new CmsNotSentError(reason, message)
          : error.failure === 'timeout' || error.failure === 'network'
            ? new CmsNoAnswerError(reason, message)
            : new CmsError(reason, message);
        if (error.failure !== 'blocked') {
          failed.obstacle = failureObstacle(error, {
            limitBytes: this.policy.maxResponseBytes,
            route: `${NAMESPACE}/${route}`,
            message,
          });
        }
        throw failed;
      }
      throw error;
    }
    // Looked for in error answers only: a 2xx in the plugin's shape is taken as it is.
    return interpret(response, route, schema, (text) => repeatsCredentials(text, site));
  }
}

/** The plugin's answer about an article's post (create or read), checked and made safe to show. */
function postResultOf(body: CreatedPost, site: SiteAccess, articleUuid: string): CmsPostResult {
  postSchemas ??= createdPostSchemas();
  if (body.article_uuid !== undefined && body.article_uuid.toLowerCase() !== articleUuid.toLowerCase()) {
    // Another request's answer (a proxy or cache mixing answers up): nothing is recorded, the next
    // attempt asks again (and finds this article's post, if the site made one).
    throw new CmsError('plugin_error', "The site answered with another article's post");
  }
  const readBack = postSchemas.keptSchema.safeParse(body.site);
  const kept = readBack.success ? readBack.data : undefined;
  const permalink = safePermalink(body.link, site.url, body.id);
  // What the site says is text, never markup (a tag named `&lt;b&gt;` comes back as `<b>`).
  const status = safeText(body.status);
  return {
    cmsId: String(body.id),
    permalink,
    status,
    slug: safeSlug(body.slug),
    dateGmt: body.date_gmt,
    created: body.created,
    ...(kept
      ? {
          site: {
            postId: String(body.id),
            link: permalink,
            status,
            blocks: kept.blocks,
            freeformBlocks: kept.freeform_blocks,
            tags: kept.tags.map(safeText),
            excerpt: kept.excerpt,
            seoAdapter: safeText(kept.seo.adapter),
            metaDescription: kept.seo.meta_description,
            focusKeyword: kept.seo.focus_keyword,
            seoTitle: kept.seo.title === true,
            schemaBy: kept.schema.printed_by === null ? null : safeText(kept.schema.printed_by),
            schemaTypes: kept.schema.types.map(safeText),
            faqQuestions: kept.faq_questions,
            ...(kept.internal_links_kept !== undefined
              ? { internalLinksKept: kept.internal_links_kept }
              : {}),
            ...(kept.internal_links_dropped !== undefined
              ? { internalLinksDropped: kept.internal_links_dropped }
              : {}),
            ...(kept.internal_links_dropped_urls !== undefined
              ? {
                  // An article has at most 10 internal links: a longer answer is cut, not stored whole.
                  internalLinksDroppedUrls: kept.internal_links_dropped_urls
                    .filter((url) => url.length <= MAX_DROPPED_URL_LENGTH)
                    .slice(0, MAX_DROPPED_URLS),
                }
              : {}),
            ...(kept.featured_media_id ? { featuredMediaId: String(kept.featured_media_id) } : {}),
            ...(kept.images_uploaded !== undefined ? { imagesUploaded: kept.images_uploaded } : {}),
            ...(kept.media
              ? {
                  media: kept.media.flatMap((media) => {
                    const url = httpUrl(media.url);
                    return url ? [{ slot: safeText(media.slot), id: String(media.id), url }] : [];
                  }),
                }
              : {}),
          },
        }
      : {}),
  };
}

/**
 * What a site says about its post reaches our API: a permalink that is not an http(s) URL (a
 * `javascript:` link from a hostile site) becomes the post's shortlink on the registered site;
 * one that is comes back as the URL standard writes it (`<`, `>`, `"` and spaces percent-encoded).
 */
function safePermalink(link: string, siteUrl: string, postId: number): string {
  try {
    const url = new URL(link);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.href;
  } catch {
    // not a URL: fall through
  }
  return `${siteUrl.replace(/\/+$/, '')}/?p=${postId}`;
}

/** An http(s) URL the site gave (a Media Library file), as the URL standard writes it; undefined otherwise. */
function httpUrl(link: string): string | undefined {
  try {
    const url = new URL(link);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A slug as WordPress makes them (`sanitize_title`: letters, digits, `-`, `_`, non-ASCII
 * percent-encoded); anything else is dropped and our own slug stays.
 */
function safeSlug(slug: string | null): string | null {
  if (slug === null) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(slug);
  } catch {
    return null;
  }
  return /^[\p{L}\p{M}\p{N}_-]+$/u.test(decoded) ? slug : null;
}

/** Maps one HTTP answer of a plugin route to its parsed body or a named CmsError. */
function interpret<T extends z.ZodMiniType>(
  response: OutboundResponse,
  route: string,
  schema: T,
  echoesCredentials: (text: string) => boolean,
): z.infer<T> {
  const { status } = response;
  if (status === 413) {
    // Whoever answers (the web server, a proxy, the plugin), the same post is refused again.
    throw new CmsError(
      'invalid_request',
      `The site refused the ${route === 'posts' ? 'post' : 'request'} as too large (413): raise the web server's request size limit, then retry`,
      status,
    );
  }
  const json = parseJson(response);
  if (json === undefined) {
    const type = describeType(response);
    if ((status === 401 || status === 403) && response.credentialsDropped) {
      throw refusedWhereLoginNotSent(response, status);
    }
    // The plugin answers every refusal in JSON: a page instead is a firewall's or host's.
    const firewallHint = REFUSED_AS_A_PAGE.has(status)
      ? ': a firewall or security plugin in front of WordPress may be blocking Inkpress (allow requests to /?rest_route=/inkpress/v1/)'
      : '';
    const failed = new CmsError(
      'unreachable',
      status >= 500
        ? `The site answered ${status} (server error)`
        : type.includes('json')
          ? `The site answered ${status} with ${type} that is not valid JSON`
          : `The site answered ${status} with ${type} instead of JSON${firewallHint}`,
      status,
    );
    // What the page is (a firewall's challenge, a server error, ...), as the doctor's probe names it.
    const mediaType = type === 'no content type' ? '' : type.toLowerCase();
    failed.obstacle = pageObstacle(status, response.headers, response.body.toString('utf8'), mediaType);
    throw failed;
  }
  const success = status >= 200 && status < 300 ? schema.safeParse(json) : undefined;
  if (success?.success) return success.data;

  const wpError = wpErrorSchema.safeParse(json).data;
  const repeats = echoesCredentials(response.body.toString('utf8'));
  // An answer repeating the credentials keeps only a code of WordPress's or the plugin's own form.
  const code = repeats && !isSiteOwnCode(wpError?.code) ? undefined : wpError?.code;
  // The site's own words, for the client's `publication.last_error` (plain text, bounded).
  const siteSays = repeats
    ? ": (the site's message repeated the site password and is not shown)"
    : wpError?.message
      ? `: ${wpError.message.replace(/<[^>]*>/g, '').slice(0, 300)}`
      : '';

  if (success !== undefined) {
    throw new CmsError('plugin_missing', `The site's answer on ${route} is not the plugin's`, status, code);
  }
  if ((status === 401 || status === 403) && response.credentialsDropped) {
    throw refusedWhereLoginNotSent(response, status, code);
  }
  if (status === 403 && code === 'inkpress_forbidden') {
    // Logged in, but the role lost `edit_posts` / `publish_posts` on the site: not a refused login
    // (flagging it would stop every publication, and the next login check would clear it again).
    throw new CmsError(
      'plugin_error',
      `The site user may not make this post (${code})${siteSays}: give the Inkpress Editor role back its capabilities`,
      status,
      code,
    );
  }
  if (status === 401 || status === 403) {
    // Plugin 1.1 answers every refused login with one 401 (inkpress_login_failed); 1.0 still
    // told a missing role apart, which counts as a refused login all the same.
    if (code?.startsWith('inkpress_')) {
      throw new CmsError('unauthorized', 'The site refused the login', status, code);
    }
    // With the plugin active, every refusal on its routes carries an inkpress_ code.
    throw new CmsError(
      'plugin_missing',
      `The site refused the request without the plugin (${code ?? status})`,
      status,
      code,
    );
  }
  if (status === 404) {
    throw new CmsError(
      'plugin_missing',
      `The site has no ${NAMESPACE} routes (${code ?? 404})`,
      status,
      code,
    );
  }
  // The plugin's (or WordPress validating its route) rejection carries its code; a proxy's JSON 400 does not.
  if ((status === 400 || status === 422) && isSiteOwnCode(code)) {
    throw new CmsError(
      'invalid_request',
      `The plugin rejected the request (${code ?? status})${siteSays}`,
      status,
      code,
    );
  }
  if (status === 429 && code?.startsWith('inkpress_')) {
    const retryAfterSeconds = parseRetryAfter(response.headers['retry-after']);
    throw new CmsError(
      'throttled',
      `The site paused logins for this user after repeated failures (${code})`,
      status,
      code,
      retryAfterSeconds,
    );
  }
  if (status >= 500 && code?.startsWith('inkpress_')) {
    throw new CmsError('plugin_error', `The plugin answered ${status} (${code})${siteSays}`, status, code);
  }
  const failed = new CmsError(
    'unreachable',
    `The site answered ${status} (${code ?? 'error'})`,
    status,
    code,
  );
  if (status >= 500) {
    failed.obstacle = { kind: 'server_error', status, detail: `HTTP ${status} (${code ?? 'JSON'})` };
  }
  throw failed;
}

/**
 * A refusal where the request arrived without the login (it is never sent on to another host or
 * port, nor from https to http): not a verdict on the login.
 */
function refusedWhereLoginNotSent(response: OutboundResponse, status: number, code?: string): CmsError {
  return new CmsError(
    'unreachable',
    `The site redirected to ${new URL(response.url).origin}, where the login is not sent, and was refused there (${status}): register the address the site answers at`,
    status,
    code,
  );
}

/** The JSON of a response that says it is JSON (PHP notices around it allowed: `jsonIn`). */
function parseJson(response: OutboundResponse): unknown {
  const type = String(response.headers['content-type'] ?? '').toLowerCase();
  if (!type.includes('json')) return undefined;
  return jsonIn(response.body.toString('utf8'));
}

/**
 * Retry-After in seconds (delta-seconds only, as the plugin sends it); undefined otherwise, and
 * for a value past MAX_RETRY_AFTER_SECONDS (`99999999999999999999` is no date).
 */
export function parseRetryAfter(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\s*\d{1,10}\s*$/.test(value)) return undefined;
  return believedRetryAfter(Number(value));
}

function describeType(response: OutboundResponse): string {
  const type = String(response.headers['content-type'] ?? '')
    .split(';')[0]
    ?.trim();
  return type ? type : 'no content type';
}

/**
 * JSON with `<`, `>` and `&` written as \u escapes: the same data for any JSON parser, but no
 * `<!--`, `<script` or other markup for a web application firewall to block in the body.
 */
export function wafSafeJson(payload: unknown): string {
  return JSON.stringify(payload).replace(
    /[<>&]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** `2030-01-02T03:04:05Z`: the plugin's date_gmt form (no milliseconds). */
function toWordPressDate(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 19)}Z`;
}

/** The policy of one call, its total (and connect) time at most `timeoutMs` when given. */
function boundedPolicy(policy: OutboundPolicy, timeoutMs: number | undefined): OutboundPolicy {
  if (timeoutMs === undefined || timeoutMs >= policy.totalTimeoutMs) return policy;
  return {
    ...policy,
    totalTimeoutMs: timeoutMs,
    connectTimeoutMs: Math.min(policy.connectTimeoutMs, timeoutMs),
  };
}

/**
 * Timeouts and limits of calls to customer sites. Registration makes two calls inside the API's
 * 29 s limit, so one call (redirects included) gets at most 10 s.
 */
export const DEFAULT_SITE_LIMITS = {
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 10_000,
  maxResponseBytes: 5 * 1024 * 1024,
  maxRedirects: 3,
} as const;
