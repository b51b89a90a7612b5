/**
 * The `Idempotency-Key` request header on create operations (IETF draft "The Idempotency-Key
 * HTTP Header Field", as Stripe uses it), through Powertools' idempotency utility and its
 * DynamoDB persistence layer.
 *
 * - The key is scoped to the account and the operation. The first successful response to a key
 *   is kept for 24 h and returned to every later copy (header `Idempotent-Replayed: true`).
 * - A copy that arrives while the first is running waits for it (polling the record), then
 *   returns its response; still running at the end of the wait: 409 with `Retry-After`.
 * - Same key, different request (compared after parsing, with the first copy's once it has
 *   finished): 422 on `Idempotency-Key`.
 * - Errors are not kept: a request that failed validation or was refused changed nothing, and
 *   after an error the record is released (Powertools' rule), so a retry runs again.
 */

import { createHash } from 'node:crypto';
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { Context } from 'aws-lambda';
import { IdempotencyKeyReusedError, RequestInProgressError } from '../../core/errors';
import type { ApiRequest, Operation } from './api-handler';
import { idempotencyKeyOf } from './idempotency-key';
import type { ApiResult } from './responses';

const KEEP_SECONDS = 24 * 60 * 60;
/** The time an invocation has when there is no Lambda context (a handler called directly). */
const DEFAULT_REMAINING_MS = 10_000;
const noLambdaContext = { getRemainingTimeInMillis: () => DEFAULT_REMAINING_MS } as Context;
/** Kept free at the end of the invocation to answer the 409. */
const ANSWER_MARGIN_MS = 1_000;
const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 500;
const RETRY_AFTER_SECONDS = 2;

/** What an idempotent operation's dependencies carry: its own persistence layer (composition/idempotency.ts). */
export interface IdempotencyDeps {
  idempotency: BasePersistenceLayer;
}

export interface IdempotentOperation<Input, Deps extends IdempotencyDeps> {
  /** Names the operation in stored keys: the same key on two operations is two keys. */
  scope: string;
  /**
   * Parses and validates the request (reading what it needs, e.g. the website's profile defaults);
   * a request refused here is never stored.
   */
  parse: (request: ApiRequest, deps: Deps) => Input | Promise<Input>;
  /** What two copies must share to be the same request (default: the whole parsed input). */
  fingerprint?: (input: Input) => unknown;
  /**
   * Performs the operation; what it returns is kept for the key, what it throws is not.
   * `keyed` comes with the header only: `uuid` is derived from the account, operation and key,
   * `requestHash` from the request. An operation that names what it creates with the uuid and
   * stores the hash beside it stays idempotent even when the stored response was lost (the
   * invocation died after its write): a copy finds what the first stored, and a different
   * request with the same key is refused (IdempotencyKeyReusedError).
   */
  run: (request: ApiRequest, deps: Deps, input: Input, keyed?: KeyedRequest) => Promise<ApiResult>;
}

/** What the `Idempotency-Key` header gives an operation: see `IdempotentOperation.run`. */
export interface KeyedRequest {
  uuid: string;
  requestHash: string;
}

/** What Powertools hashes into the record's key (the whole payload: no JMESPath expression is set). */
interface IdempotencyKeyPayload {
  accountId: string;
  idempotencyKey: string;
}

type Execute = () => Promise<StoredResult>;
/**
 * What is kept for a key: the result with its body as JSON text, and the hash of the request that
 * produced it, which a later copy must match.
 */
type StoredResult = Omit<ApiResult, 'body'> & { body: string; requestHash?: string };

/** Wraps an operation so that the `Idempotency-Key` header makes retries of it safe. */
export function idempotentOperation<Input, Deps extends IdempotencyDeps>(
  operation: IdempotentOperation<Input, Deps>,
): Operation<Deps> {
  let config: IdempotencyConfig | undefined;
  let runOnce: ((payload: IdempotencyKeyPayload, execute: Execute) => Promise<StoredResult>) | undefined;

  return async (request, deps) => {
    const idempotencyKey = idempotencyKeyOf(request);
    const input = await operation.parse(request, deps);
    if (idempotencyKey === undefined) return operation.run(request, deps, input);

    // Made on the first request that carries a key (the persistence layer comes with the deps).
    // No JMESPath expression (the payload is the key; requests are compared below), so the bundles
    // leave Powertools' JMESPath engine out (functions/shared/bundling/jmespath-unused.ts).
    config ??= new IdempotencyConfig({
      throwOnNoIdempotencyKey: true,
      expiresAfterSeconds: KEEP_SECONDS,
      hashFunction: 'sha256',
      responseHook: (response) => replayed(response),
    });
    runOnce ??= makeIdempotent((_payload: IdempotencyKeyPayload, execute: Execute) => execute(), {
      persistenceStore: deps.idempotency,
      config,
      keyPrefix: operation.scope,
    });
    // A record left by a crashed invocation expires when that invocation's time is up.
    const lambdaContext = request.lambdaContext ?? noLambdaContext;
    config.registerLambdaContext(lambdaContext);

    const payload: IdempotencyKeyPayload = { accountId: request.accountId, idempotencyKey };
    const requestHash = hashOf(operation.fingerprint ? operation.fingerprint(input) : input);
    // The body is kept as the JSON text that was sent: a DynamoDB map would not keep the order of
    // its keys, and a replay must be the same bytes as the first answer.
    const execute = async (): Promise<StoredResult> => {
      const keyed = { uuid: keyedUuid(operation.scope, request.accountId, idempotencyKey), requestHash };
      const result = await operation.run(request, deps, input, keyed);
      return { ...result, body: JSON.stringify(result.body), requestHash };
    };
    const waitUntil = Date.now() + Math.max(0, lambdaContext.getRemainingTimeInMillis() - ANSWER_MARGIN_MS);
    for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(pollMs * 2, MAX_POLL_MS)) {
      try {
        const { requestHash: storedHash, ...stored } = await runOnce(payload, execute);
        // A record kept before the hash was stored with the response (24 h at most after that
        // change) has none, and is replayed without the comparison.
        if (storedHash !== undefined && storedHash !== requestHash) throw new IdempotencyKeyReusedError();
        // Records kept before bodies were stored as text (24 h at most) hold the body itself.
        const body: unknown = typeof stored.body === 'string' ? JSON.parse(stored.body) : stored.body;
        return { ...stored, body };
      } catch (error) {
        if (!(error instanceof IdempotencyAlreadyInProgressError)) throw error;
        if (Date.now() + pollMs > waitUntil) throw new RequestInProgressError(RETRY_AFTER_SECONDS);
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    }
  };
}

/** The SHA-256 of a request as JSON, its object keys sorted (the same request, the same hash). */
function hashOf(request: unknown): string {
  return createHash('sha256').update(JSON.stringify(request, sortedKeys)).digest('base64');
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A uuid (version 8, name-based) that only this account's key on this operation yields. */
function keyedUuid(scope: string, accountId: string, idempotencyKey: string): string {
  const hex = createHash('sha256').update(`${scope}\n${accountId}\n${idempotencyKey}`).digest('hex');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A stored response (an ApiResult), marked as replayed. */
function replayed<Stored>(response: Stored): Stored {
  const result = response as ApiResult;
  return { ...result, headers: { ...result.headers, 'Idempotent-Replayed': 'true' } } as Stored;
}
