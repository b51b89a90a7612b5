/** What the search adapters share: one bounded JSON call, and the untrusted results made plain. */
import type { SearchResult } from '../../core/sources/ports';
import { plainText } from '../../core/text';
import { guardedRequest, type OutboundPolicy, type OutboundRequest } from '../wordpress/guarded-http';
import type { DestinationPolicy } from '../wordpress/ssrf-guard';

export const SEARCH_LIMITS = {
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 10_000,
  maxResponseBytes: 2 * 1024 * 1024,
  maxRedirects: 0,
} as const;

/** The provider could not answer usably (the article is then written without its results). */
export class SearchError extends Error {
  override readonly name = 'SearchError';
}

export function searchPolicy(destinations: DestinationPolicy): OutboundPolicy {
  return { ...SEARCH_LIMITS, ...destinations };
}

/** Sends the request and parses the JSON answer; any failure is a SearchError naming the provider. */
export async function searchJson(
  provider: string,
  request: OutboundRequest,
  policy: OutboundPolicy,
): Promise<unknown> {
  let response: Awaited<ReturnType<typeof guardedRequest>>;
  try {
    response = await guardedRequest(request, policy);
  } catch (error) {
    throw new SearchError(
      `${provider} could not be reached: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (response.status !== 200) throw new SearchError(`${provider} answered HTTP ${response.status}.`);
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new SearchError(`${provider} answered something that is not JSON.`);
  }
}

/**
 * Results as the provider gave them, kept only where the URL is https (or http, unless
 * `httpsOnly`: deployed) and made plain text: the provider's answer is untrusted input like a page.
 */
export function cleanResults(
  items: unknown,
  fields: { url: string; title: string; snippet: string },
  limit: number,
  httpsOnly = false,
): SearchResult[] {
  const scheme = httpsOnly ? /^https:\/\//i : /^https?:\/\//i;
  if (!Array.isArray(items)) return [];
  const results: SearchResult[] = [];
  for (const item of items) {
    if (item === null || typeof item !== 'object') continue;
    const record = item as Record<string, unknown>;
    const url = record[fields.url];
    if (typeof url !== 'string' || url.length > 2000 || !scheme.test(url)) continue;
    try {
      new URL(url);
    } catch {
      continue;
    }
    const text = (value: unknown, max: number) =>
      typeof value === 'string' ? plainText(value).replace(/\s+/g, ' ').trim().slice(0, max) : '';
    results.push({
      url,
      title: text(record[fields.title], 300),
      snippet: text(record[fields.snippet], 1000),
    });
    if (results.length >= limit) break;
  }
  return results;
}
