/**
 * A client's image URL, fetched through the SSRF guard: https when deployed (http only where
 * private addresses are allowed: local mode and tests), every hop checked, at most 10 MB, at most
 * 10 s for the whole call, at most 3 redirects. Whether the bytes are an image is the processor's
 * check (by their content, never by the Content-Type the server gives).
 */
import { type ImageFetcher, ImageUnavailableError } from '../../core/images/ports';
import { guardedRequest, OutboundError, type OutboundPolicy } from '../wordpress/guarded-http';

export const IMAGE_FETCH_LIMITS = {
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 10_000,
  maxResponseBytes: 10 * 1024 * 1024,
  maxRedirects: 3,
} as const;

export class GuardedImageFetcher implements ImageFetcher {
  private readonly policy: OutboundPolicy;

  constructor(policy: OutboundPolicy) {
    // Redirects too: https on every hop where plain http is not allowed.
    this.policy = { ...policy, httpsOnly: !policy.allowPrivate };
  }

  async fetch(url: string): Promise<Buffer> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ImageUnavailableError('The image URL is not a valid address.');
    }
    if (parsed.protocol !== 'https:' && !(this.policy.allowPrivate && parsed.protocol === 'http:')) {
      throw new ImageUnavailableError('The image URL must be an https:// address.');
    }
    try {
      const response = await guardedRequest(
        { method: 'GET', url, headers: { Accept: 'image/*', 'User-Agent': 'Inkpress/1.0 (+image fetch)' } },
        this.policy,
      );
      if (response.status !== 200) {
        throw new ImageUnavailableError(`The image URL answered ${response.status}.`);
      }
      if (response.body.length === 0) throw new ImageUnavailableError('The image URL answered no bytes.');
      return response.body;
    } catch (error) {
      if (error instanceof OutboundError) {
        throw new ImageUnavailableError(
          `The image could not be fetched (${error.failure}): ${error.message}`,
        );
      }
      throw error;
    }
  }
}
