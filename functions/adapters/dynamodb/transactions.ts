import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';

/** Condition results of a cancelled transaction, in the order of its items. */
export type CancellationCodes = (string | undefined)[];

function cancellationCodes(error: unknown): CancellationCodes | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  return (error.CancellationReasons ?? []).map((reason) => reason.Code);
}

/**
 * The one test for a condition that did not hold. `conditionFailed(error)`: a single-item write
 * (`ConditionalCheckFailedException`). `conditionFailed(failure, item)`: item `item` of a
 * cancelled transaction, given the error thrown or the codes `transactWithRetry` hands to `decide`.
 */
export function conditionFailed(error: unknown): error is ConditionalCheckFailedException;
export function conditionFailed(failure: unknown, item: number): boolean;
export function conditionFailed(failure: unknown, item?: number): boolean {
  if (item === undefined) {
    return (
      failure instanceof ConditionalCheckFailedException ||
      (failure as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException'
    );
  }
  const codes = Array.isArray(failure) ? (failure as CancellationCodes) : cancellationCodes(failure);
  return codes?.[item] === 'ConditionalCheckFailed';
}

/** True when another transaction on the same items got in the way: try again. */
export function isRetryableCancellation(codes: CancellationCodes): boolean {
  return codes.some((code) => code === 'TransactionConflict' || code === 'ThrottlingError');
}

export const MAX_TRANSACTION_ATTEMPTS = 12;

/** Backoff with full jitter: 10 ms, 20 ms, ... capped at 500 ms. */
export function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(500, 10 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/** What to do about a cancelled transaction: stop with a result, or try again. */
export type CancellationVerdict<T> = { result: T } | 'retry';

/**
 * Runs the transaction `build(attempt)` gives until it commits (then returns `committed`).
 * A cancellation goes to `decide`: a result ends it, 'retry' tries again after a backoff, and
 * undefined retries only write conflicts and throttling, rethrowing anything else. `build` may
 * answer with a result instead, when what it re-read means there is nothing left to write.
 */
export async function transactWithRetry<T>(
  client: DynamoDBDocumentClient,
  build: (attempt: number) => Promise<TransactWriteCommandInput | { result: T }>,
  committed: T,
  decide: (codes: CancellationCodes) => CancellationVerdict<T> | undefined,
  maxAttempts = MAX_TRANSACTION_ATTEMPTS,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const input = await build(attempt);
    if ('result' in input) return input.result;
    try {
      await client.send(new TransactWriteCommand(input));
      return committed;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes) throw error;
      const verdict = decide(codes);
      if (verdict !== undefined && verdict !== 'retry') return verdict.result;
      if (verdict === undefined && !isRetryableCancellation(codes)) throw error;
      if (attempt + 1 >= maxAttempts) throw error;
      await backoff(attempt);
    }
  }
}

/**
 * Idempotency token of one attempt of a transaction (DynamoDB allows at most 36 characters): one
 * `call` per logical transaction, so that two requests reserving at the same instant never look
 * like one request sent twice, which DynamoDB would answer "done" for both.
 */
export function transactionToken(call: string, attempt: number): string {
  return createHash('sha256').update(`${call}|${attempt}`).digest('hex').slice(0, 36);
}
