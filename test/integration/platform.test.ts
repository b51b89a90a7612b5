import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { handler as authorize } from '../../functions/api/authorizer';
import { handler as listLanguages } from '../../functions/api/list-languages';
import * as accounts from '../../functions/core/accounts';
import { AUTHENTICATION_HINTS } from '../../functions/core/authentication-hints';
import { dynamoDocumentClient } from '../../functions/shared/aws/dynamodb';
import * as deps from '../support/deps';
import { apiEvent, loadEvent } from '../support/events';
import { provisionTestResources } from '../support/test-resources';

beforeAll(async () => {
  await provisionTestResources();
});

function authorizerEvent(authorization: string): APIGatewayTokenAuthorizerEvent {
  return {
    ...loadEvent<APIGatewayTokenAuthorizerEvent>('authorizer.json'),
    authorizationToken: authorization,
  };
}

describe('bearer tokens', () => {
  it('maps a valid token to its account, with a policy covering the whole API', async () => {
    const { account, token } = await accounts.createAccount(
      { accounts: deps.accountStore(), tokens: deps.tokenStore() },
      { name: 'Acme', credits: 10 },
    );
    const result = await authorize(authorizerEvent(`Bearer ${token}`));
    expect(result.context).toEqual({ accountId: account.accountId });
    expect(result.policyDocument.Statement[0]).toMatchObject({
      Effect: 'Allow',
      Resource: 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/*',
    });
  });

  /** A denial is an answer, not an error: the function's Errors metric must not count it. */
  const expectDenied = async (header: string, hint: string = AUTHENTICATION_HINTS.unknownToken) => {
    const result = await authorize(authorizerEvent(header));
    expect(result.principalId).toBe('unauthenticated');
    // The ACCESS_DENIED gateway response writes it into the 401 (lib/constructs/inkpress-api.ts).
    expect(result.context).toEqual({ hint });
    expect(result.policyDocument.Statement).toEqual([
      {
        Action: 'execute-api:Invoke',
        Effect: 'Deny',
        Resource: 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/*',
      },
    ]);
  };

  it.each([
    ['no header', '', AUTHENTICATION_HINTS.missing],
    ['another scheme', 'Basic abc', AUTHENTICATION_HINTS.otherScheme],
    ['a token without the Bearer prefix', 'ink_abc', AUTHENTICATION_HINTS.noScheme],
    ['Bearer without one token', 'Bearer', AUTHENTICATION_HINTS.malformedBearer],
    ['unknown token', 'Bearer ink_unknown', AUTHENTICATION_HINTS.unknownToken],
  ])(
    'denies %s with a Deny policy for the whole API and a hint, without throwing',
    async (_label, header, hint) => {
      await expectDenied(header, hint);
    },
  );

  it('denies a revoked token', async () => {
    const { token } = await accounts.createAccount(
      { accounts: deps.accountStore(), tokens: deps.tokenStore() },
      { name: 'Revoked', credits: 0 },
    );
    await accounts.revokeToken({ tokens: deps.tokenStore() }, token);
    await expectDenied(`Bearer ${token}`);
  });

  it('throws (a real error, for the alarm) when the token table cannot be read', async () => {
    const client = dynamoDocumentClient();
    client.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });
      },
      { step: 'initialize', name: 'tokenTableDown' },
    );
    try {
      await expect(authorize(authorizerEvent('Bearer ink_anything'))).rejects.toThrow(
        'Requested resource not found',
      );
    } finally {
      client.middlewareStack.remove('tokenTableDown');
    }
  });

  it('stores only the SHA-256 of a token', async () => {
    const { token } = await accounts.createAccount(
      { accounts: deps.accountStore(), tokens: deps.tokenStore() },
      { name: 'Hashed', credits: 0 },
    );
    expect(await deps.tokenStore().get(token)).toBeUndefined();
    expect(await deps.tokenStore().get(accounts.hashToken(token))).toMatchObject({
      tokenHash: accounts.hashToken(token),
    });
  });
});

describe('GET /v1/languages', () => {
  it('lists supported language codes and names as JSON with a request id', async () => {
    const response = await listLanguages(apiEvent('list-languages'));
    expect(response.statusCode).toBe(200);
    expect(response.headers?.['Content-Type']).toMatch(/^application\/json/);
    expect(response.headers?.['X-Request-Id']).toBe('c6af9ac6-7b61-11e6-9a41-93e8deadbeef');
    const body = JSON.parse(response.body);
    expect(body.data).toEqual(
      expect.arrayContaining([
        { code: 'en', name: 'English' },
        { code: 'de', name: 'German' },
      ]),
    );
  });

  it('answers 401 JSON when no account reached the handler', async () => {
    const event = apiEvent('list-languages');
    event.requestContext.authorizer = null;
    const response = await listLanguages(event);
    expect(response.statusCode).toBe(401);
    expect(response.headers?.['WWW-Authenticate']).toBe('Bearer');
    expect(JSON.parse(response.body)).toEqual({
      message: 'Unauthenticated.',
      hint: AUTHENTICATION_HINTS.unknownToken,
    });
  });
});
