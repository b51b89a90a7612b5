/**
 * Runs the TOKEN authorizer the way API Gateway does: the `Authorization` header is the
 * identity source (missing: 401 without calling the function), a thrown `Unauthorized` is a
 * 401, the returned policy is evaluated against the method ARN (a denied request gets the
 * stack's ACCESS_DENIED gateway response: 401 Unauthenticated), and decisions are cached per
 * token for the API's authorizer cache TTL (so a revoked token keeps working until its cached
 * decision expires, as when deployed).
 */
import type {
  APIGatewayAuthorizerResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
  PolicyDocument,
  Statement,
} from 'aws-lambda';
import { errorBodies } from '../functions/api/http/responses';
import { authorizer as authorizerFunction } from '../functions/routes';
import { runtimeSettings } from '../functions/shared/runtime-settings';
import type { HandlerLoader } from './handler-loader';
import { lambdaContext } from './lambda-context';

type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<unknown>;

export type AuthorizerDecision =
  | { allowed: true; context: Record<string, string | number | boolean> }
  | { allowed: false; statusCode: number; body: Record<string, unknown> };

interface CachedResult {
  expiresAt: number;
  principalId: string;
  policy: PolicyDocument;
  context: Record<string, string | number | boolean>;
}

export class LocalAuthorizer {
  private readonly cache = new Map<string, CachedResult>();

  constructor(
    private readonly loader: HandlerLoader,
    private readonly cacheSeconds: number,
    private readonly log: (line: string) => void,
  ) {}

  async decide(authorization: string | undefined, methodArn: string): Promise<AuthorizerDecision> {
    if (authorization === undefined || authorization.trim() === '') return unauthenticated();
    const cached = this.cache.get(authorization);
    const result =
      cached && cached.expiresAt > Date.now() ? cached : await this.invoke(authorization, methodArn);
    if ('allowed' in result) return result;
    if (!isAllowed(result.policy, methodArn)) return unauthenticated();
    return { allowed: true, context: { ...result.context, principalId: result.principalId } };
  }

  private async invoke(authorization: string, methodArn: string): Promise<CachedResult | AuthorizerDecision> {
    const loaded = this.loader.load<AuthorizerHandler>(authorizerFunction.entry);
    if (loaded.status !== 'loaded') return serverError();
    let output: unknown;
    try {
      output = await loaded.handler(
        { type: 'TOKEN', authorizationToken: authorization, methodArn },
        lambdaContext(authorizerFunction.name, runtimeSettings.apiTimeoutSeconds),
      );
    } catch (error) {
      if (error instanceof Error && error.message === 'Unauthorized') return unauthenticated();
      this.log(`Authorizer failed: ${error instanceof Error ? error.message : String(error)}`);
      return serverError();
    }
    const result = output as Partial<APIGatewayAuthorizerResult> | undefined;
    if (!result?.principalId || !result.policyDocument) {
      this.log('Authorizer returned no principalId or policyDocument.');
      return serverError();
    }
    const cached: CachedResult = {
      expiresAt: Date.now() + this.cacheSeconds * 1000,
      principalId: result.principalId,
      policy: result.policyDocument,
      context: { ...(result.context ?? {}) } as Record<string, string | number | boolean>,
    };
    if (this.cacheSeconds > 0) this.cache.set(authorization, cached);
    return cached;
  }
}

function unauthenticated(): AuthorizerDecision {
  return { allowed: false, statusCode: 401, body: { ...errorBodies.unauthenticated } };
}

function serverError(): AuthorizerDecision {
  return { allowed: false, statusCode: 500, body: { ...errorBodies.serverError } };
}

/** IAM-style evaluation for `execute-api:Invoke`: an explicit Deny wins, otherwise an Allow is needed. */
export function isAllowed(policy: PolicyDocument, methodArn: string): boolean {
  const statements = (Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement]) as Statement[];
  const matching = statements.filter((statement) => appliesTo(statement, methodArn));
  if (matching.some((statement) => statement.Effect === 'Deny')) return false;
  return matching.some((statement) => statement.Effect === 'Allow');
}

function appliesTo(statement: Statement, methodArn: string): boolean {
  const record = statement as unknown as { Action?: string | string[]; Resource?: string | string[] };
  const actions = toList(record.Action);
  const resources = toList(record.Resource);
  return (
    actions.some((action) => wildcardMatch(action, 'execute-api:Invoke')) &&
    resources.some((resource) => wildcardMatch(resource, methodArn))
  );
}

function toList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function wildcardMatch(pattern: string, value: string): boolean {
  const source = pattern
    .split('')
    .map((char) => {
      if (char === '*') return '.*';
      if (char === '?') return '.';
      return char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`).test(value);
}
