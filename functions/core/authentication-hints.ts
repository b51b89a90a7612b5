/**
 * What a 401 adds to `Unauthenticated.` (the message every refusal keeps): how the
 * `Authorization` header was wrong. A hint never tells an unknown token from a revoked one.
 *
 * API Gateway writes the hint of a denied token into its gateway response's JSON from the
 * authorizer's context, unescaped (`lib/constructs/inkpress-api.ts`): hints hold no `"` or `\`.
 */
export const AUTHENTICATION_HINTS = {
  missing: 'Send your API token in the Authorization header: Authorization: Bearer <token>.',
  noScheme:
    'The Authorization header holds a token without the Bearer prefix: send Authorization: Bearer <token>.',
  otherScheme: 'Inkpress takes a bearer token: send Authorization: Bearer <token>.',
  malformedBearer:
    'The Authorization header must be Bearer, one space and the token: Authorization: Bearer <token>.',
  unknownToken: 'The token is unknown or revoked: check it, or ask for a new one.',
} as const;

export type AuthenticationHint = (typeof AUTHENTICATION_HINTS)[keyof typeof AUTHENTICATION_HINTS];

/** The hint for an `Authorization` header that is not `Bearer <token>`. */
export function malformedAuthorizationHint(authorization: string | undefined): AuthenticationHint {
  const value = authorization?.trim() ?? '';
  if (value === '') return AUTHENTICATION_HINTS.missing;
  if (/^bearer(\s|$)/i.test(value)) return AUTHENTICATION_HINTS.malformedBearer;
  return /\s/.test(value) ? AUTHENTICATION_HINTS.otherScheme : AUTHENTICATION_HINTS.noScheme;
}
