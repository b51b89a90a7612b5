/**
 * Sources of articles: source pages through the SSRF guard, the web search provider chosen by
 * SEARCH_PROVIDER (its key from Secrets Manager deployed, from the environment locally). Composed
 * by the generation worker only.
 */
import { BraveSearch } from '../adapters/search/brave-search';
import { searchPolicy } from '../adapters/search/search-http';
import { SearxngSearch } from '../adapters/search/searxng-search';
import { TavilySearch } from '../adapters/search/tavily-search';
import { readSecretApiKey } from '../adapters/secrets/secret-api-key';
import { GuardedPageFetcher } from '../adapters/sources/page-fetcher';
import { systemResolver } from '../adapters/wordpress/ssrf-guard';
import type { SourceDeps } from '../core/sources/article-sources';
import type { WebSearch } from '../core/sources/ports';
import { secretsManagerClient } from '../shared/aws/secrets-manager';
import type { Config, SearchSettings } from '../shared/config';

/** Source pages and customer links: private addresses only in local mode. */
function destinations(config: Config) {
  return { allowPrivate: config.allowPrivateUrls, resolve: systemResolver };
}

/** The configured search provider, or undefined. */
export function webSearch(config: Config): WebSearch | undefined {
  const search = config.search;
  if (!search) return undefined;
  if (search.provider === 'searxng') {
    // The operator's own instance may live on a private network: its address is configuration, not input.
    return new SearxngSearch(
      search.searxngUrl as string,
      searchPolicy({ allowPrivate: true, resolve: systemResolver }),
      !config.allowPrivateUrls,
    );
  }
  const policy = searchPolicy(destinations(config));
  const key = searchKey(search);
  return search.provider === 'brave' ? new BraveSearch(key, policy) : new TavilySearch(key, policy);
}

function searchKey(search: SearchSettings): () => Promise<string> {
  const { secretArn, apiKey } = search;
  if (secretArn) {
    let read: Promise<string> | undefined;
    return () => {
      read ??= readSecretApiKey(secretsManagerClient(), secretArn).catch((error) => {
        read = undefined;
        throw error;
      });
      return read;
    };
  }
  return async () => apiKey as string;
}

export function sourceDeps(config: Config): SourceDeps {
  const search = webSearch(config);
  return { pages: new GuardedPageFetcher(destinations(config)), ...(search ? { search } : {}) };
}
