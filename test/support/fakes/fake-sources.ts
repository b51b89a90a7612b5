/** In-memory stand-ins for source pages, a web search and the link check of publication. */
import {
  type FetchedPage,
  type LinkChecker,
  type PageFetcher,
  type SearchResult,
  SourceFetchError,
  type WebSearch,
} from '../../../functions/core/sources/ports';

/** Pages by URL; any other URL fails like a 404. Records what was fetched and how many at once. */
export class FakePageFetcher implements PageFetcher {
  readonly fetched: string[] = [];
  maxConcurrent = 0;
  private inFlight = 0;

  constructor(
    private readonly pages: Record<string, { title: string; text: string }> = {},
    private readonly delayMs = 0,
  ) {}

  async fetchPage(url: string): Promise<FetchedPage> {
    this.fetched.push(url);
    this.inFlight++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.inFlight);
    try {
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      const page = this.pages[url];
      if (!page) throw new SourceFetchError('The page answered HTTP 404.');
      return { url, ...page };
    } finally {
      this.inFlight--;
    }
  }
}

/** Results by query word: every result whose `for` word is in the query. */
export class FakeWebSearch implements WebSearch {
  readonly queries: string[] = [];

  constructor(private readonly results: (SearchResult & { for: string })[]) {}

  async search(query: string, options: { language: string; limit: number }): Promise<SearchResult[]> {
    this.queries.push(query);
    return this.results
      .filter((result) => query.toLowerCase().includes(result.for))
      .slice(0, options.limit)
      .map(({ for: _word, ...result }) => result);
  }
}

/** Links answer unless listed as dead. */
export class FakeLinkChecker implements LinkChecker {
  readonly checked: string[] = [];

  constructor(private readonly dead: string[] = []) {}

  async answers(url: string): Promise<boolean> {
    this.checked.push(url);
    return !this.dead.includes(url);
  }
}
