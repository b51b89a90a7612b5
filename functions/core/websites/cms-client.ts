/**
 * The port to a customer's site (WordPress with the Inkpress Connector plugin), and the named
 * failures every call can end in, so that registration and publishing can each decide what
 * a failure means for them.
 */

/** Where and as whom to call a site. The password is plain text here and must never be logged. */
export interface SiteAccess {
  url: string;
  login: string;
  password: string;
}

export interface CmsStatus {
  userLogin: string;
  roles: string[];
  cmsVersion: string;
  pluginVersion: string;
  /**
   * The site's time zone as the plugin reported it (`wp_timezone_string()`), unchecked: a site may
   * send anything (core/time-zones.ts `siteTimeZone` keeps a valid one); undefined when it sent none.
   */
  timezone?: string;
}

export interface CmsCategory {
  cmsId: string;
  name: string;
  slug: string;
  /** Parent term id; absent for top-level categories. */
  parentCmsId?: string;
}

export type CmsPostStatus = 'publish' | 'draft' | 'future';

/** One H2 section of a post: its heading (plain text) and its body (HTML, no H2). */
export interface CmsSection {
  heading: string;
  html: string;
}

/**
 * A post as structured data; the plugin builds the native blocks from it, so no block markup
 * (`<!--`) travels in the request.
 */
export interface CmsPost {
  /** Idempotency key on the site: the same article never becomes two posts. */
  articleUuid: string;
  title: string;
  /** HTML before the first section. */
  introHtml: string;
  sections: CmsSection[];
  /** The FAQ, one more H2 section (`heading`) with a question-answer pair per H3. */
  faq?: { heading: string; items: { question: string; answer: string }[] };
  /** The sources section, after the FAQ: one more H2 and a list; a `url` of null lost its link at the check. */
  sources?: { heading: string; items: { title: string; url: string | null }[] };
  status: CmsPostStatus;
  slug?: string;
  /** ISO time (UTC); required for `future`. */
  dateGmt?: string;
  categoryCmsId?: string;
  /** Language code of the article. */
  language: string;
  metaDescription?: string;
  focusKeyword?: string;
  excerpt?: string;
  tags: string[];
  /** The internal links of the post, for the plugin's check that each target is still published. */
  internalLinks?: { url: string; postId: string }[];
  /** The featured image, then the inline ones; absent or empty: none. */
  images?: CmsImage[];
}

/** What the site kept of a post, as the plugin read it back after writing it. */
export interface PublicationSite {
  postId: string;
  link: string;
  status: string;
  /** Top-level blocks of the stored content, and how many of them are Classic (freeform). */
  blocks: number;
  freeformBlocks: number;
  /** Tag names attached to the post. */
  tags: string[];
  excerpt: boolean;
  /** Where the meta description and focus keyword went: an SEO plugin, or `inkpress` itself. */
  seoAdapter: string;
  metaDescription: boolean;
  focusKeyword: boolean;
  /** The SEO plugin kept the SEO title Inkpress sent (plugin 1.5.1+; false before, and with no SEO plugin). */
  seoTitle?: boolean;
  /** Who prints the JSON-LD (`inkpress`, or the SEO plugin whose graph got the pieces), and its types. */
  schemaBy: string | null;
  schemaTypes: string[];
  faqQuestions: number;
  /** External links checked when the post was sent: answering (kept) and not (dropped, text kept). */
  externalLinksKept?: number;
  externalLinksDropped?: number;
  /** Internal links the plugin kept and dropped (target no longer published) when it wrote the post (plugin 1.5). */
  internalLinksKept?: number;
  internalLinksDropped?: number;
  /** Which links it dropped: their URLs as Inkpress sent them (plugin 1.5.2+; undefined before). */
  internalLinksDroppedUrls?: string[];
  /** The post's featured image (attachment id), when it has one (plugin 1.5+). */
  featuredMediaId?: string;
  /** The article's images in the site's Media Library (plugin 1.5+). */
  imagesUploaded?: number;
  /** Where the site keeps each of the article's images (plugin 1.5+). */
  media?: CmsMedia[];
}

/** One of the article's images in the site's Media Library. */
export interface CmsMedia {
  slot: string;
  id: string;
  url: string;
}

/** An image sent with a post (its bytes travel in the request; the site never fetches a URL). */
export interface CmsImage {
  slot: string;
  bytes: Buffer;
  mimeType: string;
  alt: string;
  /** Inline images: the H2 section (0-based) it follows. */
  afterSection?: number;
}

export interface CmsPostResult {
  cmsId: string;
  permalink: string;
  status: string;
  slug: string | null;
  /** ISO time (UTC) of the post, when the site reports one. */
  dateGmt: string | null;
  /** False when the post already existed for this article (a retried publish). */
  created: boolean;
  /** The read-back, from plugins that give one. */
  site?: PublicationSite;
}

/**
 * Why a call failed (the plugin refuses every login failure alike, so `unauthorized` never
 * says which it was):
 * - `unreachable`: network error, timeout, a bad redirect, 5xx without the plugin's JSON, or an
 *   answer that is not the plugin's JSON;
 * - `plugin_error`: the plugin answered, but failed on its side (5xx with an `inkpress_` code,
 *   e.g. `inkpress_insert_failed`, `inkpress_busy`): the site is reachable, try again later;
 * - `blocked`: the URL points at an address outbound calls may not reach;
 * - `unauthorized`: the plugin refused the login (401/403): unknown user, wrong password, or a
 *   user without the Inkpress Editor role or with more power than it (the plugin answers no
 *   other user on any route, so its status route never reports a user without the role);
 * - `throttled`: the plugin paused logins for this user from our address after repeated
 *   failures (429); try again after `retryAfterSeconds`, nothing is wrong with the website;
 * - `plugin_missing`: the site answers, but not through the plugin's routes;
 * - `invalid_request`: the plugin rejected what we sent (400/422).
 */
export type CmsFailureReason =
  | 'unreachable'
  | 'plugin_error'
  | 'blocked'
  | 'unauthorized'
  | 'throttled'
  | 'plugin_missing'
  | 'invalid_request';

/** An error code of the plugin (`inkpress_...`) or of WordPress's REST layer (`rest_...`). */
export function isSiteOwnCode(code: string | undefined): boolean {
  return code !== undefined && /^(?:inkpress|rest)_[a-z0-9_]+$/.test(code);
}

/**
 * The longest pause a site's Retry-After is believed for (the plugin pauses a login for 15
 * minutes): a longer one, or one that is not a finite number, counts as not said.
 */
export const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

/** A site's Retry-After in seconds when it is believable (see MAX_RETRY_AFTER_SECONDS); undefined otherwise. */
export function believedRetryAfter(seconds: number | undefined): number | undefined {
  return seconds !== undefined &&
    Number.isFinite(seconds) &&
    seconds >= 0 &&
    seconds <= MAX_RETRY_AFTER_SECONDS
    ? seconds
    : undefined;
}

/**
 * What answered a probe of a site instead of the plugin's JSON, or why nothing did: each kind
 * is something the connection doctor saw, never a guess (core/websites/diagnose-connection.ts).
 */
export type SiteObstacle =
  /** The address may not be called (private, loopback, reserved): a 422 on `url`, as registration says. */
  | { kind: 'blocked'; detail: string }
  /** The host name has no address. */
  | { kind: 'unresolved'; detail: string }
  /** HTTPS failed: a certificate not valid for the host (self-signed, expired, another name), or no TLS. */
  | { kind: 'tls'; detail: string }
  | { kind: 'timeout'; detail: string }
  /** No HTTP answer otherwise (connection refused or reset, not HTTP). */
  | { kind: 'unreachable'; detail: string }
  /** An answer to `route` larger than the call reads (`limitBytes`): a page, a file or an endless stream, not the REST API's JSON. */
  | { kind: 'too_large'; limitBytes: number; route: string }
  /**
   * A redirect (not followed): `location` is absolute; `refused` says why the URL policy would
   * not call it (a private, loopback, ... address), when it would not.
   */
  | { kind: 'redirected'; status: number; location: string; refused?: string }
  /** An HTML challenge or block page of a firewall; `vendor` when its page or headers name it. */
  | { kind: 'challenge'; status: number; vendor: string | undefined }
  /** WordPress's REST API refused or is off (a JSON refusal that is not the plugin's, or a page for a REST address). */
  | {
      kind: 'rest_blocked';
      status: number;
      detail: string;
      /** A JSON 401/403 of WordPress's REST layer to an anonymous request: it may let a login through. */
      anonymous?: boolean;
    }
  | { kind: 'server_error'; status: number; detail: string }
  /** An answer that is neither WordPress's REST API nor a recognised block. */
  | { kind: 'not_wordpress'; status: number; detail: string }
  /** WordPress's REST API answers, without the plugin's routes. */
  | { kind: 'plugin_missing'; detail: string };

export class CmsError extends Error {
  override readonly name = 'CmsError';
  constructor(
    readonly reason: CmsFailureReason,
    message: string,
    /** HTTP status of the site's answer, when there was one. */
    readonly httpStatus?: number,
    /** Error code the site gave (e.g. `rest_no_route`), when there was one. */
    readonly code?: string,
    /** For `throttled`: the site's Retry-After, in seconds, when it gave one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /**
   * What answered instead of the plugin, or kept it from answering, named as the connection
   * doctor's probe names it (a firewall's page, a timeout, ...), when the client could tell.
   */
  obstacle?: SiteObstacle;
}

/**
 * A call that failed before its request could reach the site (no connection, blocked address,
 * name not resolved): the site did nothing, a post included.
 */
export class CmsNotSentError extends CmsError {}

/**
 * A call sent whose answer never came (a timeout, a connection cut off): the site may have acted
 * on it, a failed login included.
 */
export class CmsNoAnswerError extends CmsError {}

/** How a call is made: `timeoutMs` bounds it below the client's own limit (what a request has left). */
export interface CmsCallOptions {
  timeoutMs?: number;
}

export interface CmsClient {
  /** Who the credentials log in as; fails `unauthorized` for anyone but a user holding just the role. */
  status(site: SiteAccess, options?: CmsCallOptions): Promise<CmsStatus>;
  categories(site: SiteAccess, options?: CmsCallOptions): Promise<CmsCategory[]>;
  /** Creates the post for an article, or returns the one created earlier for it. */
  createPost(site: SiteAccess, post: CmsPost): Promise<CmsPostResult>;
  /**
   * The post created earlier for an article, as it is now (plugin 1.4+; a scheduled post whose
   * time has passed is published by the read); undefined when the site has none for it.
   */
  readPost(site: SiteAccess, articleUuid: string): Promise<CmsPostResult | undefined>;
}
