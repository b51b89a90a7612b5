/** SearXNG (self-hosted) through its JSON API: `GET {SEARXNG_URL}/search?q=...&format=json`. */
import type { SearchResult, WebSearch } from '../../core/sources/ports';
import type { OutboundPolicy } from '../wordpress/guarded-http';
import { cleanResults, SearchError, searchJson } from './search-http';

export class SearxngSearch implements WebSearch {
  constructor(
    private readonly baseUrl: string,
    private readonly policy: OutboundPolicy,
    /** Results must be https (deployed); the instance itself may be private and plain http. */
    private readonly httpsResultsOnly = false,
  ) {}

  async search(query: string, options: { language: string; limit: number }): Promise<SearchResult[]> {
    const url = new URL('search', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    url.searchParams.set('language', options.language);
    const answer = await searchJson(
      'SearXNG',
      { method: 'GET', url: url.toString(), headers: { Accept: 'application/json' } },
      this.policy,
    );
    if (answer === null || typeof answer !== 'object')
      throw new SearchError('SearXNG answered no results list.');
    return cleanResults(
      (answer as { results?: unknown }).results,
      { url: 'url', title: 'title', snippet: 'content' },
      options.limit,
      this.httpsResultsOnly,
    );
  }
}
