/** What a generated article carries besides its HTML: SEO fields, FAQ, tags, quality notes. */
import type { SourceReport } from '../sources/article-sources';
import type { ImageWarning } from './article-images';

export interface FaqItem {
  question: string;
  answer: string;
}

/**
 * A quality gate the article still fails after its part was regenerated once. The article is
 * kept; the warning tells the client what to check.
 */
export type QualityWarning =
  | 'keyword_missing_in_title'
  | 'keyword_missing_in_first_paragraph'
  | 'keyword_missing_in_meta_description'
  | 'keyword_missing_in_h2'
  | 'meta_description_too_short'
  /** A banned phrase of the website's profile the model kept using, rewritten out (banned-phrases.ts). */
  | `banned_phrase_removed:${string}`
  /** Sources were asked for (`sources` or `research=web`) and none could be fetched. */
  | 'no_source_fetched'
  /** The website's plugin is older than 1.5 (or its index could never be read): no links, no topic check. */
  | 'site_index_unavailable'
  /** The refreshed site index holds a post on the article's topic (same-topic.ts). */
  | 'same_topic_exists'
  /** The text offered fewer fitting phrases than the internal links asked for. */
  | 'internal_links_fewer_than_requested'
  | ImageWarning;

export interface ArticleSeo {
  /** 120-160 characters, with the focus keyword (or the client's own). */
  metaDescription: string;
  /** 1-2 sentences of plain text. */
  excerpt: string;
  /** The first keyword. */
  focusKeyword: string;
  faq: FaqItem[];
  /** The client's tags, then the model's (with auto_tags). */
  tags: string[];
  qualityWarnings: QualityWarning[];
  /** The sources asked for, fetched or not, and whether the article cites them (articles with sources). */
  sources?: SourceReport[];
  /** External links the model wrote that pointed to no fetched source: removed, their text kept. */
  externalLinksRemoved?: number;
  /** Links placed to the website's own posts (internal-links.ts); absent on older articles. */
  internalLinks?: { url: string; postId: string; anchor: string }[];
}

/** The first of the comma-separated keywords. */
export function focusKeywordOf(keyword: string): string {
  return (keyword.split(',')[0] ?? keyword).trim();
}

/** Tags are the same when they differ only in case (WordPress matches tag names that way). */
export function sameTag(a: string, b: string): boolean {
  return a.toLocaleLowerCase() === b.toLocaleLowerCase();
}
