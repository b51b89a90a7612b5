/**
 * The answer of the plugin's index route (`GET inkpress/v1/index`, plugin 1.5), checked and made
 * safe: what a site says about its posts becomes links in our articles, so a post whose URL is
 * not an http(s) URL on the site's own host is left out, and every text is plain text.
 */
import * as z from 'zod/mini';
import { safeText } from '../../core/text';
import { sameSiteHost } from '../../core/websites/site-hosts';
import type { SiteIndexEntry, SiteIndexPage, SiteIndexQuery } from '../../core/websites/site-index';

const integer = () => z.number().check(z.int());

function buildSchema() {
  const entry = z.object({
    id: integer(),
    status: z.string(),
    title: z.optional(z.string()),
    link: z.optional(z.string()),
    excerpt: z.optional(z.string()),
    focus_keyword: z.optional(z.string()),
    categories: z.optional(z.array(z.string())),
    modified_gmt: z.optional(z.string()),
    noindex: z.optional(z.boolean()),
  });
  return { page: z.object({ posts: z.array(z.unknown()), total_pages: integer() }), entry };
}
let built: ReturnType<typeof buildSchema> | undefined;

/** The schema of the whole answer (each entry is checked on its own: one bad entry is skipped). */
export function siteIndexSchema() {
  built ??= buildSchema();
  return built.page;
}

/** The plugin route with its query string (the client puts it after `?rest_route=/inkpress/v1/`). */
export function siteIndexRoute(query: SiteIndexQuery): string {
  const params = new URLSearchParams({ page: String(query.page), per_page: String(query.perPage) });
  if (query.modifiedAfter)
    params.set('modified_after', `${new Date(query.modifiedAfter).toISOString().slice(0, 19)}Z`);
  return `index&${params.toString()}`;
}

const EXCERPT_MAX = 300;

export function siteIndexPageOf(
  body: z.infer<ReturnType<typeof siteIndexSchema>>,
  siteUrl: string,
): SiteIndexPage {
  built ??= buildSchema();
  const schema = built.entry;
  const entries: SiteIndexEntry[] = [];
  for (const raw of body.posts) {
    const parsed = schema.safeParse(raw);
    if (!parsed.success || parsed.data.id <= 0) continue;
    const post = parsed.data;
    const postId = String(post.id);
    if (post.status !== 'publish') {
      entries.push({ status: safeText(post.status) || 'unknown', postId });
      continue;
    }
    const url = siteUrlOf(post.link, siteUrl);
    const modified = post.modified_gmt ? Date.parse(post.modified_gmt) : Number.NaN;
    const title = safeText(post.title ?? '');
    if (url === undefined || Number.isNaN(modified) || title === '') {
      // Not a post we could link to: treated as gone, so an earlier copy leaves the index.
      entries.push({ status: 'unusable', postId });
      continue;
    }
    entries.push({
      status: 'publish',
      postId,
      url,
      title,
      excerpt: [...safeText(post.excerpt ?? '')].slice(0, EXCERPT_MAX).join(''),
      focusKeyword: safeText(post.focus_keyword ?? ''),
      categories: (post.categories ?? []).map(safeText).filter((name: string) => name !== ''),
      modifiedAt: new Date(modified).toISOString(),
      noindex: post.noindex === true,
    });
  }
  return { entries, totalPages: Math.max(0, body.total_pages) };
}

/** The permalink as the URL standard writes it, when it is http(s) on the site's own host. */
function siteUrlOf(link: string | undefined, siteUrl: string): string | undefined {
  if (!link) return undefined;
  try {
    const url = new URL(link);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    if (url.username || url.password) return undefined;
    return sameSiteHost(url.hostname, siteUrl) ? url.href : undefined;
  } catch {
    return undefined;
  }
}
