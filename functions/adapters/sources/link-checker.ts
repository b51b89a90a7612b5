/**
 * Whether an external link of an article still answers, checked through the SSRF guard when the
 * article is published: a GET answered by its status line (the body is not read), redirects
 * followed and re-checked; a 4xx, a 5xx or no answer in time means the link goes.
 */
import type { LinkChecker } from '../../core/sources/ports';
import { guardedRequest, type OutboundPolicy } from '../wordpress/guarded-http';
import type { DestinationPolicy } from '../wordpress/ssrf-guard';

export const LINK_CHECK_LIMITS = {
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 10_000,
  maxResponseBytes: 2 * 1024 * 1024,
  maxRedirects: 3,
} as const;

export class GuardedLinkChecker implements LinkChecker {
  private readonly policy: OutboundPolicy;

  constructor(destinations: DestinationPolicy, limits: Partial<typeof LINK_CHECK_LIMITS> = {}) {
    this.policy = { ...LINK_CHECK_LIMITS, ...limits, ...destinations };
  }

  async answers(url: string): Promise<boolean> {
    try {
      const response = await guardedRequest(
        { method: 'GET', url, headers: { 'User-Agent': 'InkpressBot/1.0 (+link check)' }, statusOnly: true },
        this.policy,
      );
      return response.status < 400;
    } catch {
      return false;
    }
  }
}
