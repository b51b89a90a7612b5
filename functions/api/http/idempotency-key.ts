/** The `Idempotency-Key` request header: its rules, apart from what keeps and replays answers. */
import { ValidationError } from '../../core/errors';
import type { ApiRequest } from './api-handler';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** What the IETF draft allows in the key (a Structured Field string): printable ASCII. */
export const PRINTABLE_ASCII = /^[\x20-\x7E]+$/;

/** The header's value as sent, or undefined without the header; 422 when empty, not printable ASCII or too long. */
export function idempotencyKeyOf(request: Pick<ApiRequest, 'headers'>): string | undefined {
  const value = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  if (value === undefined) return undefined;
  if (value.trim() === '') {
    throw ValidationError.forField(IDEMPOTENCY_KEY_HEADER, `The ${IDEMPOTENCY_KEY_HEADER} header is empty.`);
  }
  if (!PRINTABLE_ASCII.test(value)) {
    throw ValidationError.forField(
      IDEMPOTENCY_KEY_HEADER,
      `The ${IDEMPOTENCY_KEY_HEADER} header must be printable ASCII text, such as a UUID.`,
    );
  }
  if (value.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw ValidationError.forField(
      IDEMPOTENCY_KEY_HEADER,
      `The ${IDEMPOTENCY_KEY_HEADER} header may not be longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
    );
  }
  return value;
}
