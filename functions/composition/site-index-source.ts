/** The plugin's index route, through the SSRF guard, and what refreshing a site's index needs. */
import { systemResolver } from '../adapters/wordpress/ssrf-guard';
import { DEFAULT_SITE_LIMITS, WordPressClient } from '../adapters/wordpress/wordpress-client';
import type { Article } from '../core/articles/article';
import type { SiteIndexSource, WebsiteStore } from '../core/websites/ports';
import { type SiteIndexDeps, siteForGeneration } from '../core/websites/site-index';
import type { Config } from '../shared/config';
import { systemClock } from './clock';
import { passwordCipher } from './site-access';
import { siteIndexStore } from './site-index';
import { websiteStore } from './websites';

export function siteIndexSource(config: Config): SiteIndexSource {
  return new WordPressClient({
    ...DEFAULT_SITE_LIMITS,
    allowPrivate: config.allowPrivateUrls,
    resolve: systemResolver,
  });
}

export function siteIndexDeps(config: Config): SiteIndexDeps & { websites: WebsiteStore } {
  return {
    websites: websiteStore(config),
    cipher: passwordCipher(config),
    siteIndex: siteIndexStore(config),
    indexSource: siteIndexSource(config),
    clock: systemClock,
  };
}

/** The worker's view of an article's website: its URL and its site index, refreshed when stale. */
export function generationSiteLinks(config: Config) {
  const deps = siteIndexDeps(config);
  return (article: Article) => siteForGeneration(deps, article);
}
