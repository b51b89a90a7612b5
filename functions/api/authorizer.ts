/**
 * API Gateway TOKEN authorizer: bearer token -> account id (in the request context).
 *
 * A token it does not know gets a Deny policy, which API Gateway answers with our ACCESS_DENIED
 * gateway response (401 `{"message":"Unauthenticated.","hint":...}`, see
 * lib/constructs/inkpress-api.ts): the decision's context carries the hint (what was wrong with
 * the header), which the gateway response writes in.
 * It does not throw for it, so the function's Errors metric (and its alarm) counts only real
 * failures, such as the token table being unreachable, which API Gateway answers with a 500.
 */
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { tokenStore } from '../composition/accounts';
import { authenticate } from '../core/accounts';
import { UnauthenticatedError } from '../core/errors';
import { composition } from '../shared/composition';

const composed = composition('Authorizer', (config) => ({ tokens: tokenStore(config) }));

/** Principal of a denied decision (shown as the account in the access log). */
export const UNAUTHENTICATED_PRINCIPAL = 'unauthenticated';

export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  let accountId: string;
  try {
    accountId = await authenticate(composed().deps, event.authorizationToken);
  } catch (error) {
    if (error instanceof UnauthenticatedError) {
      return { ...decision(UNAUTHENTICATED_PRINCIPAL, 'Deny', event), context: { hint: error.hint } };
    }
    throw error;
  }
  return { ...decision(accountId, 'Allow', event), context: { accountId } };
}

/** The decision is cached per token, so it must cover every route of the API. */
function decision(
  principalId: string,
  effect: 'Allow' | 'Deny',
  event: APIGatewayTokenAuthorizerEvent,
): APIGatewayAuthorizerResult {
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: wholeApiArn(event.methodArn) }],
    },
  };
}

/** `arn:...:api-id/stage/METHOD/path` -> `arn:...:api-id/stage/*` */
function wholeApiArn(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}
