/** Websites (registered WordPress sites) and their categories, and how they look on the wire. */
import { toBit, toWireTime } from '../wire';

export interface Website {
  accountId: string;
  websiteUuid: string;
  /** Normalised site URL (scheme + host + path, no trailing slash). */
  url: string;
  login: string;
  /** Base64 KMS ciphertext of the password, bound to {accountId, websiteUuid, url}. Never returned. */
  passwordCiphertext: string;
  /**
   * Context version of `passwordCiphertext` (PASSWORD_CONTEXT_VERSION); absent on records written
   * before the URL was bound, which `siteAccessOf` migrates on their next read.
   */
  passwordContextVersion?: number;
  loginIsUnauthorized: boolean;
  isUnreachable: boolean;
  totalCreditsUsed: number;
  articlesCount: number;
  categoriesCount: number;
  createdAt: string;
  /** Last time the sweeper checked the site (ISO). */
  checkedAt?: string;
  /**
   * The site's time zone (an IANA name or `±HH:MM`, core/time-zones.ts) as its plugin last
   * reported it; null when the site reported none or an invalid one, absent on records from before.
   */
  timezone?: string | null;
}

type HealthFlags = Pick<Website, 'loginIsUnauthorized' | 'isUnreachable'>;

const isHealthy = (website: HealthFlags) => !website.loginIsUnauthorized && !website.isUnreachable;

/**
 * The webhook event a write of a website's flags reports: one that clears the last flag is
 * `website.recovered`; one that leaves the website with other flags set than before is
 * `website.unhealthy` (a flag set on a healthy website, or what is wrong changed, e.g. from
 * unreachable to a refused login, which needs someone to act).
 */
export function healthEvent(
  before: HealthFlags,
  after: HealthFlags,
): 'website.unhealthy' | 'website.recovered' | undefined {
  const unchanged =
    before.loginIsUnauthorized === after.loginIsUnauthorized && before.isUnreachable === after.isUnreachable;
  if (unchanged) return undefined;
  return isHealthy(after) ? 'website.recovered' : 'website.unhealthy';
}

export interface Category {
  websiteUuid: string;
  categoryUuid: string;
  /** Term id on the WordPress site. */
  cmsId: string;
  name: string;
  slug: string;
  /** Term id of the parent category on the site, when it has one. */
  parentCmsId?: string;
}

export interface WebsiteData {
  uuid: string;
  url: string;
  total_credits_used: number;
  articles_count: number;
  categories_count: number;
  created_at: string | null;
  timezone: string | null;
}

export function websiteData(website: Website): WebsiteData {
  return {
    uuid: website.websiteUuid,
    url: website.url,
    total_credits_used: website.totalCreditsUsed,
    articles_count: website.articlesCount,
    categories_count: website.categoriesCount,
    created_at: toWireTime(website.createdAt),
    timezone: website.timezone ?? null,
  };
}

/** The website record of docs/api-contract.md: `{ data, status }`. */
export function presentWebsite(website: Website) {
  return {
    data: websiteData(website),
    status: {
      login_is_unauthorized: toBit(website.loginIsUnauthorized),
      is_unreachable: toBit(website.isUnreachable),
    },
  };
}

export function presentCategory(category: Category) {
  return { uuid: category.categoryUuid, name: category.name, slug: category.slug, cms_id: category.cmsId };
}
