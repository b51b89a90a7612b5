/**
 * Where a webhook may be sent, checked when the endpoint is created (each attempt checks again
 * through the SSRF guard). Apart from the signed sender: creating an endpoint signs nothing.
 */
import type { ReceiverUrlPolicy } from '../../core/webhooks/ports';
import { BlockedDestinationError, checkDestination, type Resolver } from '../wordpress/ssrf-guard';

/**
 * Receiver URLs: https on port 443 when deployed, and (unless private addresses are allowed) a
 * public address.
 */
export class ReceiverUrlGuard implements ReceiverUrlPolicy {
  constructor(private readonly options: { allowPrivate: boolean; resolve: Resolver }) {}

  async check(url: URL): Promise<'ok' | 'blocked' | 'unresolvable' | 'https_required'> {
    if (!this.options.allowPrivate && (url.protocol !== 'https:' || (url.port !== '' && url.port !== '443')))
      return 'https_required';
    try {
      await checkDestination(url, this.options);
      return 'ok';
    } catch (error) {
      if (error instanceof BlockedDestinationError)
        return /has no address/.test(error.message) ? 'unresolvable' : 'blocked';
      return 'unresolvable';
    }
  }
}
