/**
 * At publication every external link of the article is checked (through the SSRF guard, by the
 * LinkChecker): a link that answers 4xx/5xx or not at all is dropped, its text kept. Links to the
 * article's own website are internal and not checked here.
 */
import pLimit from 'p-limit';
import { comparableUrl, dropLinks, externalLinks } from './citations';
import type { LinkChecker } from './ports';

export const LINK_CHECK_CONCURRENCY = 5;

export interface LinksAtPublication {
  html: string;
  /** Distinct external addresses that answered, and that did not (their links dropped). */
  kept: number;
  dropped: number;
}

export async function checkExternalLinks(
  html: string,
  siteHost: string | undefined,
  checker: LinkChecker,
): Promise<LinksAtPublication> {
  const urls = new Map<string, string>();
  for (const href of externalLinks(html, siteHost)) {
    const comparable = comparableUrl(href);
    if (comparable !== undefined && !urls.has(comparable)) urls.set(comparable, href);
  }
  const limit = pLimit(LINK_CHECK_CONCURRENCY);
  const dead = new Set<string>();
  await Promise.all(
    [...urls].map(([comparable, href]) =>
      limit(async () => {
        if (!(await checker.answers(href).catch(() => false))) dead.add(comparable);
      }),
    ),
  );
  return {
    html: dead.size > 0 ? dropLinks(html, dead) : html,
    kept: urls.size - dead.size,
    dropped: dead.size,
  };
}
