/**
 * What grounding an article in sources needs from the outside world: pages fetched (through the
 * SSRF guard) and reduced to their main text, a web search, and a check that a link still answers.
 * Everything these return is untrusted input, like a page.
 */

/** A page's main text, as the extraction found it (hidden content and comments dropped). */
export interface FetchedPage {
  /** The URL asked for (the address the article cites). */
  url: string;
  /** The page's title (plain text; the URL's host when the page has none). */
  title: string;
  /** Main text, paragraphs separated by blank lines. */
  text: string;
}

/** A page that could not be used; `message` says why, for the client (no secret in it). */
export class SourceFetchError extends Error {
  override readonly name = 'SourceFetchError';
}

export interface PageFetcher {
  /** The page's main text; throws SourceFetchError when it cannot be fetched or read. */
  fetchPage(url: string): Promise<FetchedPage>;
}

export interface SearchResult {
  url: string;
  title: string;
  snippet: string;
}

/** A web search provider (SearXNG, Brave Search, Tavily). */
export interface WebSearch {
  /** At most `limit` results for `query`, best first; throws when the provider fails. */
  search(query: string, options: { language: string; limit: number }): Promise<SearchResult[]>;
}

/** Whether an external link still answers (at publication). */
export interface LinkChecker {
  /** False for a 4xx or 5xx answer, or none at all (timeout, refused, blocked address). */
  answers(url: string): Promise<boolean>;
}
