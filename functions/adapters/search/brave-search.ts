/** Brave Search API: `GET https://api.search.brave.com/res/v1/web/search` with the subscription token. */
import type { SearchResult, WebSearch } from '../../core/sources/ports';
import type { OutboundPolicy } from '../wordpress/guarded-http';
import { cleanResults, SearchError, searchJson } from './search-http';

export const BRAVE_ENDPOINT = 'https://api.search.brave.com/res/v1/web/search';

export class BraveSearch implements WebSearch {
  constructor(
    private readonly apiKey: () => Promise<string>,
    private readonly policy: OutboundPolicy,
    private readonly endpoint: string = BRAVE_ENDPOINT,
  ) {}

  async search(query: string, options: { language: string; limit: number }): Promise<SearchResult[]> {
    const url = new URL(this.endpoint);
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(Math.min(20, options.limit)));
    url.searchParams.set('search_lang', options.language);
    const answer = await searchJson(
      'Brave Search',
      {
        method: 'GET',
        url: url.toString(),
        headers: { Accept: 'application/json', 'X-Subscription-Token': await this.apiKey() },
      },
      this.policy,
    );
    if (answer === null || typeof answer !== 'object')
      throw new SearchError('Brave Search answered no results.');
    const web = (answer as { web?: { results?: unknown } }).web;
    return cleanResults(
      web?.results,
      { url: 'url', title: 'title', snippet: 'description' },
      options.limit,
      !this.policy.allowPrivate,
    );
  }
}
