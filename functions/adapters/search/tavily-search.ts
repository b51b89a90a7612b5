/** Tavily: `POST https://api.tavily.com/search` with the API key as a bearer token. */
import type { SearchResult, WebSearch } from '../../core/sources/ports';
import type { OutboundPolicy } from '../wordpress/guarded-http';
import { cleanResults, SearchError, searchJson } from './search-http';

export const TAVILY_ENDPOINT = 'https://api.tavily.com/search';

export class TavilySearch implements WebSearch {
  constructor(
    private readonly apiKey: () => Promise<string>,
    private readonly policy: OutboundPolicy,
    private readonly endpoint: string = TAVILY_ENDPOINT,
  ) {}

  async search(query: string, options: { language: string; limit: number }): Promise<SearchResult[]> {
    const answer = await searchJson(
      'Tavily',
      {
        method: 'POST',
        url: this.endpoint,
        headers: {
          Accept: 'application/json',
          'Content-Type': 'application/json',
          Authorization: `Bearer ${await this.apiKey()}`,
        },
        body: JSON.stringify({ query, max_results: Math.min(20, options.limit), search_depth: 'basic' }),
      },
      this.policy,
    );
    if (answer === null || typeof answer !== 'object') throw new SearchError('Tavily answered no results.');
    return cleanResults(
      (answer as { results?: unknown }).results,
      { url: 'url', title: 'title', snippet: 'content' },
      options.limit,
      !this.policy.allowPrivate,
    );
  }
}
