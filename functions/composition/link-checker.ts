/** The external-link check of publication (worker and sweeper), through the SSRF guard. */
import { GuardedLinkChecker } from '../adapters/sources/link-checker';
import { systemResolver } from '../adapters/wordpress/ssrf-guard';
import type { LinkChecker } from '../core/sources/ports';
import type { Config } from '../shared/config';

/** Private addresses only in local mode. */
export function linkChecker(config: Config): LinkChecker {
  return new GuardedLinkChecker({ allowPrivate: config.allowPrivateUrls, resolve: systemResolver });
}
