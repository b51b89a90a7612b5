/**
 * Sends one webhook attempt: signed with the Standard Webhooks reference library
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`), POSTed through the SSRF guard of
 * outbound calls (every address checked after DNS, the connection pinned to it), 10 s to answer
 * with a status line (the body is not read), redirects not followed.
 */
import { Webhook } from 'standardwebhooks';
import type { SendResult, WebhookSender } from '../../core/webhooks/ports';
import { DELIVERY_TIMEOUT_MS } from '../../core/webhooks/webhook';
import {
  guardedRequest,
  OutboundError,
  type OutboundPolicy,
  REDIRECT_STATUSES,
} from '../wordpress/guarded-http';
import type { Resolver } from '../wordpress/ssrf-guard';

export const USER_AGENT = 'Inkpress-Webhooks/1.0';

export function webhookOutboundPolicy(options: { allowPrivate: boolean; resolve: Resolver }): OutboundPolicy {
  return {
    ...options,
    connectTimeoutMs: 5_000,
    totalTimeoutMs: DELIVERY_TIMEOUT_MS,
    maxResponseBytes: 256 * 1024,
    maxRedirects: 0,
  };
}

export class SignedWebhookSender implements WebhookSender {
  constructor(private readonly policy: OutboundPolicy) {}

  async send(request: {
    url: string;
    secrets: string[];
    webhookId: string;
    timestamp: Date;
    payload: string;
  }): Promise<SendResult> {
    // One `v1,<base64>` per secret, space-separated (Standard Webhooks): a receiver verifies
    // with any of them, so the previous secret keeps working during a rotation.
    const signature = request.secrets
      .map((secret) => new Webhook(secret).sign(request.webhookId, request.timestamp, request.payload))
      .join(' ');
    try {
      const response = await guardedRequest(
        {
          method: 'POST',
          url: request.url,
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': USER_AGENT,
            'webhook-id': request.webhookId,
            'webhook-timestamp': String(Math.floor(request.timestamp.getTime() / 1000)),
            'webhook-signature': signature,
          },
          body: request.payload,
          // The status decides (Standard Webhooks); a 2xx with a long or slow body is delivered.
          statusOnly: true,
        },
        this.policy,
      );
      const redirect = REDIRECT_STATUSES.has(response.status);
      return {
        kind: 'answered',
        statusCode: response.status,
        ...(redirect ? { error: 'The receiver answered with a redirect, which is not followed.' } : {}),
      };
    } catch (error) {
      if (error instanceof OutboundError) return { kind: 'failed', error: error.message };
      throw error;
    }
  }
}
