/**
 * The answer of the plugin's index route (`GET inkpress/v1/index`, plugin 1.5), checked and made
 * safe: what a site says about its posts becomes links in our articles, so a post whose URL is
 * not an http(s) URL on the site's own host is left out, and every text is plain text. Every field
 * is bounded (docs/decisions.md, "Site index"): one post with a huge title, keyword or category
 * list would otherwise make its page's write fail (DynamoDB's 400 KB item) or every later read
 * of the index slow; a field that cannot be made sane leaves its entry out, never the page.
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

/** Characters (code points) kept of an excerpt and of a title: cut at a character boundary. */
export const EXCERPT_MAX = 300;
export const TITLE_MAX = 300;
/** A longer focus keyword is dropped, not cut (a cut keyword is another keyword). */
export const FOCUS_KEYWORD_MAX = 200;
/** Category names kept per post; a longer name is dropped (WordPress holds at most 200). */
export const CATEGORIES_MAX = 20;
export const CATEGORY_NAME_MAX = 200;
/** A longer permalink leaves its entry out (the limit of sitemaps and of most crawlers). */
export const URL_MAX = 2_048;
/** WordPress's `post_status` holds at most 20 characters; `modified_gmt` is a short date. */
const STATUS_MAX = 20;
const DATE_MAX = 40;

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
      const status = post.status.length <= STATUS_MAX ? safeText(post.status) : '';
      entries.push({ status: status || 'unknown', postId });
      continue;
    }
    const url = siteUrlOf(post.link, siteUrl);
    const modified =
      post.modified_gmt && post.modified_gmt.length <= DATE_MAX ? Date.parse(post.modified_gmt) : Number.NaN;
    const title = cutText(post.title ?? '', TITLE_MAX);
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
      excerpt: cutText(post.excerpt ?? '', EXCERPT_MAX),
      focusKeyword: boundedText(post.focus_keyword ?? '', FOCUS_KEYWORD_MAX),
      categories: categoriesOf(post.categories ?? []),
      modifiedAt: new Date(modified).toISOString(),
      noindex: post.noindex === true,
    });
  }
  return { entries, totalPages: Math.max(0, body.total_pages) };
}

/**
 * Plain text cut to at most `max` characters (code points) at a grapheme boundary. The raw text is
 * first cut to a few times `max` code units, so a huge one is never made safe whole (what is left
 * after collapsing spaces and dropping markup characters still has far more than `max`).
 */
export function cutText(raw: string, max: number): string {
  const text = safeText(raw.length > max * 8 ? raw.slice(0, max * 8) : raw);
  if (text.length <= max) return text;
  const characters = [...text];
  if (characters.length <= max) return text;
  let kept = '';
  let count = 0;
  for (const { segment } of graphemes().segment(characters.slice(0, max + 1).join(''))) {
    const size = [...segment].length;
    if (count + size > max) break;
    kept += segment;
    count += size;
  }
  return kept.trimEnd();
}

/** Plain text, or '' when it has more than `max` characters (a cut one would say something else). */
function boundedText(raw: string, max: number): string {
  if (raw.length > max * 8) return '';
  const text = safeText(raw);
  return [...text].length <= max ? text : '';
}

/** At most CATEGORIES_MAX distinct names, each at most CATEGORY_NAME_MAX characters. */
function categoriesOf(names: string[]): string[] {
  const kept = new Set<string>();
  for (const raw of names) {
    if (kept.size >= CATEGORIES_MAX) break;
    const name = boundedText(raw, CATEGORY_NAME_MAX);
    if (name !== '') kept.add(name);
  }
  return [...kept];
}

let graphemeSegmenter: Intl.Segmenter | undefined;
function graphemes(): Intl.Segmenter {
  graphemeSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return graphemeSegmenter;
}

/** The permalink as the URL standard writes it, when it is http(s) on the site's own host. */
function siteUrlOf(link: string | undefined, siteUrl: string): string | undefined {
  if (!link || link.length > URL_MAX) return undefined;
  try {
    const url = new URL(link);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    if (url.username || url.password) return undefined;
    if (url.href.length > URL_MAX) return undefined;
    return sameSiteHost(url.hostname, siteUrl) ? url.href : undefined;
  } catch {
    return undefined;
  }
}
