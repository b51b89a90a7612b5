/** What a 401 says about the Authorization header it was given. */
import {
  AUTHENTICATION_HINTS,
  malformedAuthorizationHint,
} from '../../../functions/core/authentication-hints';

describe('malformedAuthorizationHint', () => {
  it.each([
    [undefined, AUTHENTICATION_HINTS.missing],
    ['  ', AUTHENTICATION_HINTS.missing],
    ['ink_abc', AUTHENTICATION_HINTS.noScheme],
    ['Basic dXNlcjpwYXNz', AUTHENTICATION_HINTS.otherScheme],
    ['Token ink_abc', AUTHENTICATION_HINTS.otherScheme],
    ['Bearer', AUTHENTICATION_HINTS.malformedBearer],
    ['bearer ink_a ink_b', AUTHENTICATION_HINTS.malformedBearer],
  ])('for %p: %s', (header, hint) => {
    expect(malformedAuthorizationHint(header)).toBe(hint);
  });

  it('writes hints API Gateway can put into JSON unescaped', () => {
    for (const hint of Object.values(AUTHENTICATION_HINTS)) {
      expect(JSON.stringify(hint)).toBe(`"${hint}"`);
    }
  });
});
