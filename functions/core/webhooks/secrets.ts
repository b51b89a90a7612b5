/** Webhook signing secrets. */
import { randomBytes } from 'node:crypto';

/** A new signing secret (Standard Webhooks: `whsec_` and 32 random bytes in base64). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
