/**
 * Named domain errors. Use cases throw these; `functions/api/http/error-response.ts` is the
 * one place that turns them into HTTP responses.
 */
import { AUTHENTICATION_HINTS, type AuthenticationHint } from './authentication-hints';

export type FieldErrors = Record<string, string[]>;

export abstract class DomainError extends Error {
  override readonly name: string = this.constructor.name;
}

/** Input that breaks a rule; nothing was changed. */
export class ValidationError extends DomainError {
  constructor(
    readonly fieldErrors: FieldErrors,
    message = firstMessage(fieldErrors) ?? 'The given data was invalid.',
  ) {
    super(message);
  }

  static forField(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** One thing the connection doctor found wrong with a site, and what its owner can do about it. */
export interface ConnectionProblem {
  code: string;
  message: string;
  /** One sentence the site owner can act on. */
  fix: string;
}

/** A site check that failed (website create or update): the 422 also lists what the doctor found. */
export class SiteProblemsError extends ValidationError {
  constructor(
    fieldErrors: FieldErrors,
    readonly problems: ConnectionProblem[],
  ) {
    super(fieldErrors);
  }
}

/**
 * Rows of a batch (`POST /v1/articles/batch`) that a single create would refuse: the 422 lists
 * each one, named as in the file, with its fields' messages.
 */
export class BatchRowsError extends ValidationError {
  constructor(
    readonly rows: { row: number; errors: FieldErrors }[],
    message: string,
  ) {
    super(
      Object.fromEntries(
        rows.flatMap(({ row, errors }) =>
          Object.entries(errors).map(([field, messages]) => [`rows.${row}.${field}`, messages]),
        ),
      ),
      message,
    );
  }
}

/** The record does not exist for this account (another account's records do not exist either). */
export class NotFoundError extends DomainError {
  constructor(readonly resource: string) {
    super(`${resource} not found.`);
  }
}

/** The record exists but is not in a state that allows the operation. */
export class ConflictError extends DomainError {}

/**
 * A create with a website whose site index holds a post on the same topic (same focus keyword or
 * a near-identical title: core/articles/same-topic.ts); `allow_same_topic=1` writes it anyway.
 */
export class SameTopicError extends ConflictError {
  constructor(readonly existingPost: { postId: string; url: string; title: string }) {
    super(
      `The website already has a post on this topic: ${existingPost.url} ("${existingPost.title}"). Send allow_same_topic=1 to write another article on it.`,
    );
  }
}

/**
 * A call to a customer's site failed (the website's flags are set accordingly): `login_refused`
 * needs new credentials or the role on the site; `unavailable` may work later.
 */
export class SiteCallError extends DomainError {
  constructor(
    readonly kind: 'login_refused' | 'unavailable',
    message: string,
  ) {
    super(message);
  }
}

/** No valid token; the 401 keeps the message `Unauthenticated.` and adds the hint. */
export class UnauthenticatedError extends DomainError {
  constructor(readonly hint: AuthenticationHint = AUTHENTICATION_HINTS.unknownToken) {
    super('Unauthenticated.');
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(readonly limitBytes: number) {
    super(`The request body is larger than ${limitBytes} bytes.`);
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor(
    contentType: string,
    contentEncoding?: string,
    accepted = 'multipart/form-data, application/x-www-form-urlencoded or application/json',
  ) {
    const problem =
      contentEncoding !== undefined
        ? `Unsupported content encoding "${contentEncoding}": send the body uncompressed.`
        : contentType === ''
          ? 'The request has no Content-Type header.'
          : `Unsupported content type "${contentType}".`;
    super(`${problem} Send ${accepted}.`);
  }
}

/** A JSON object sent as a form or without a content type (`curl -d` sends urlencoded). */
export class JsonSentAsFormError extends UnsupportedMediaTypeError {
  constructor(contentType: string) {
    super(contentType);
    const sentAs =
      contentType === ''
        ? 'the request has no Content-Type header'
        : contentType === 'application/x-www-form-urlencoded'
          ? `its Content-Type is "${contentType}" (what curl -d sends unless told otherwise)`
          : `its Content-Type is "${contentType}"`;
    this.message = `The body is JSON but ${sentAs}: send the header Content-Type: application/json.`;
  }
}

export class MalformedBodyError extends DomainError {
  constructor(detail: string) {
    super(`The request body could not be parsed: ${detail}`);
  }
}

/** A copy of a request that is still being processed (same `Idempotency-Key`); retry shortly. */
export class RequestInProgressError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'A request with this Idempotency-Key is still being processed. Retry the same request shortly to get its response.',
    );
  }
}

/** An Idempotency-Key already used (by this account, on this operation) with a different request. */
export class IdempotencyKeyReusedError extends ValidationError {
  constructor() {
    super({ 'Idempotency-Key': ['This Idempotency-Key was already used with a different request.'] });
  }
}

/** The account sent more requests than its rate limit allows; it may try again after a while. */
export class TooManyRequestsError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('Too many requests.');
  }
}

function firstMessage(fieldErrors: FieldErrors): string | undefined {
  for (const messages of Object.values(fieldErrors)) {
    if (messages[0]) return messages[0];
  }
  return undefined;
}
