/** What creating an article may ask of sources; apart from the adapters so that the create handler bundles none of them. */
import type { SourcePolicy } from '../core/sources/source-policy';
import type { Config } from '../shared/config';

/** Plain http sources only in local mode; research=web only with a search provider configured. */
export function sourcePolicy(config: Config): SourcePolicy {
  return { allowPlainHttp: config.allowPrivateUrls, webSearch: config.search !== undefined };
}
