/** API Gateway TOKEN authorizer: bearer token -> account id (in the request context). */
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { tokenStore } from '../adapters/dependencies';
import { authenticate } from '../core/accounts';
import { UnauthenticatedError } from '../core/errors';

/** The message API Gateway turns into a 401 (our UNAUTHORIZED gateway response). */
export const UNAUTHORIZED = 'Unauthorized';

export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  let accountId: string;
  try {
    accountId = await authenticate({ tokens: tokenStore() }, event.authorizationToken);
  } catch (error) {
    if (error instanceof UnauthenticatedError) throw new Error(UNAUTHORIZED);
    throw error;
  }
  return {
    principalId: accountId,
    policyDocument: {
      Version: '2012-10-17',
      // The decision is cached per token, so it must cover every route of the API.
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApiArn(event.methodArn) }],
    },
    context: { accountId },
  };
}

/** `arn:...:api-id/stage/METHOD/path` -> `arn:...:api-id/stage/*` */
function wholeApiArn(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}
