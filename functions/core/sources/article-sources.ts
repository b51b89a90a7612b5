/**
 * An article's sources, from the client's URLs or a web search: fetched in parallel with the
 * outline (at most MAX_PARALLEL_FETCHES at once), cut into passages, the most relevant passages
 * handed to each part, and the link rules applied to what the model wrote (citations.ts).
 */
import pLimit from 'p-limit';
import type { Outline, SectionPart } from '../articles/article-model';
import { comparableUrl, enforceSourceLinks, sourcesSectionHtml, withCitation } from './citations';
import { type Passage, PassageLibrary, splitPassages } from './passages';
import { type PageFetcher, SourceFetchError, type WebSearch } from './ports';

export const MAX_PARALLEL_FETCHES = 5;
/** Sources a web search contributes: the keyword's best results, then each heading's best new one. */
export const WEB_SOURCES = 5;
const KEYWORD_RESULTS_FIRST = 3;

/** What finding sources needs; `search` only where a provider is configured. */
export interface SourceDeps {
  pages: PageFetcher;
  search?: WebSearch;
}

/** What an article asks for. */
export interface SourceRequest {
  keyword: string;
  language: string;
  /** The client's URLs. */
  sources?: string[];
  research?: 'none' | 'web';
  requireSources?: boolean;
}

/** One source as show reports it: `error` when it could not be fetched, `used` when the article cites it. */
export interface SourceReport {
  url: string;
  title: string | null;
  used: boolean;
  error: string | null;
}

interface Gathered {
  url: string;
  title: string | null;
  passages: Passage[];
  error?: string;
}

/** No source could be fetched and the article requires them: it fails (and is refunded) instead. */
export class SourcesUnavailableError extends Error {
  override readonly name = 'SourcesUnavailableError';

  /** Each source and why it could not be fetched, kept on the failed article. */
  constructor(
    message: string,
    readonly sources: SourceReport[] = [],
  ) {
    super(message);
  }
}

export function wantsSources(request: SourceRequest): boolean {
  return (request.sources?.length ?? 0) > 0 || request.research === 'web';
}

/**
 * Starts fetching at once: the client's URLs, or the search for the keyword (then, once the
 * outline is there, for its headings). Never rejects: a source that fails carries its error.
 */
export function gatherSources(
  deps: SourceDeps | undefined,
  request: SourceRequest,
  outline: Promise<Outline>,
): Promise<Gathered[]> {
  const limit = pLimit(MAX_PARALLEL_FETCHES);
  const fetchOne = (url: string): Promise<Gathered> =>
    limit(async () => {
      if (!deps) return { url, title: null, passages: [], error: 'Sources cannot be fetched here.' };
      try {
        const page = await deps.pages.fetchPage(url);
        const passages = splitPassages(page);
        if (passages.length === 0)
          return { url, title: page.title, passages, error: 'The page has no readable text.' };
        return { url, title: page.title, passages };
      } catch (error) {
        const message = error instanceof SourceFetchError ? error.message : 'The page could not be fetched.';
        return { url, title: null, passages: [], error: message };
      }
    });
  if (request.research !== 'web') {
    return Promise.all((request.sources ?? []).map(fetchOne));
  }
  return searchAndFetch(deps?.search, request, outline, fetchOne);
}

async function searchAndFetch(
  search: WebSearch | undefined,
  request: SourceRequest,
  outline: Promise<Outline>,
  fetchOne: (url: string) => Promise<Gathered>,
): Promise<Gathered[]> {
  const given = request.sources ?? [];
  const taken = new Set(given.map((url) => comparableUrl(url) ?? url));
  const fetching = given.map(fetchOne);
  if (!search) return Promise.all(fetching);
  const find = (query: string, limit: number) =>
    search.search(query, { language: request.language, limit }).catch(() => []);
  const take = (url: string) => {
    const comparable = comparableUrl(url);
    if (comparable === undefined || taken.has(comparable) || taken.size >= given.length + WEB_SOURCES) return;
    taken.add(comparable);
    fetching.push(fetchOne(url));
  };
  const keywordResults = await find(request.keyword, WEB_SOURCES);
  for (const result of keywordResults.slice(0, KEYWORD_RESULTS_FIRST)) take(result.url);
  const headings = await outline.then((written) => written.headings).catch(() => [] as string[]);
  const perHeading = await Promise.all(headings.map((heading) => find(`${request.keyword} ${heading}`, 3)));
  for (const results of perHeading) {
    const fresh = results.find((result) => {
      const comparable = comparableUrl(result.url);
      return comparable !== undefined && !taken.has(comparable);
    });
    if (fresh) take(fresh.url);
  }
  for (const result of keywordResults.slice(KEYWORD_RESULTS_FIRST)) take(result.url);
  return Promise.all(fetching);
}

/** The fetched sources of an article, and what its parts get of them. */
export class ArticleSources {
  private readonly library: PassageLibrary;

  constructor(
    private readonly gathered: Gathered[],
    private readonly keyword: string,
  ) {
    this.library = new PassageLibrary(gathered.flatMap((source) => source.passages));
  }

  /** How many sources were fetched with readable text. */
  get fetchedCount(): number {
    return this.gathered.filter((source) => source.error === undefined).length;
  }

  /** The passages for a part: the introduction's and each section's most relevant ones; none for the conclusion. */
  passagesFor(part: SectionPart): Passage[] {
    if (part.kind === 'conclusion' || this.fetchedCount === 0) return [];
    const query =
      part.kind === 'section' ? `${part.heading} ${this.keyword}` : `${part.outline.title} ${this.keyword}`;
    return this.library.relevantTo(query);
  }

  /**
   * The link rules on each written part: only links to fetched sources (or the website) stay; a
   * part that had passages and cites none gets a line citing its first passage. Returns the
   * parts, how many links were removed, and the sources cited.
   */
  enforce(
    bodies: string[],
    passages: Passage[][],
    options: { language: string; siteHost?: string },
  ): { bodies: string[]; removed: number; used: Set<string> } {
    const sources = new Set<string>();
    for (const source of this.gathered) {
      const comparable = comparableUrl(source.url);
      if (source.error === undefined && comparable !== undefined) sources.add(comparable);
    }
    const used = new Set<string>();
    let removed = 0;
    const checked = bodies.map((body, index) => {
      const result = enforceSourceLinks(body, {
        sources,
        ...(options.siteHost ? { siteHost: options.siteHost } : {}),
      });
      removed += result.removed;
      let html = result.html;
      const given = passages[index] ?? [];
      const citesOne = given.some((passage) => result.cited.has(comparableUrl(passage.url) ?? ''));
      const first = given[0];
      if (!citesOne && first) {
        html = withCitation(html, options.language, { url: first.url, title: this.titleOf(first.url) });
        result.cited.add(comparableUrl(first.url) ?? first.url);
      }
      for (const url of result.cited) used.add(url);
      return html;
    });
    return { bodies: checked, removed, used };
  }

  /** The sources section (the sources cited, in the order given), or '' when none is cited. */
  sectionHtml(language: string, used: ReadonlySet<string>): string {
    const cited = this.gathered.filter((source) => used.has(comparableUrl(source.url) ?? ''));
    if (cited.length === 0) return '';
    return sourcesSectionHtml(
      language,
      cited.map((source) => ({ url: source.url, title: source.title ?? this.titleOf(source.url) })),
    );
  }

  /** Each source as show reports it. */
  report(used: ReadonlySet<string>): SourceReport[] {
    return this.gathered.map((source) => ({
      url: source.url,
      title: source.title,
      used: used.has(comparableUrl(source.url) ?? ''),
      error: source.error ?? null,
    }));
  }

  private titleOf(url: string): string {
    const found = this.gathered.find((source) => source.url === url);
    if (found?.title) return found.title;
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  }
}
