import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/** Condition results of a cancelled transaction, in the order of its items. */
export type CancellationCodes = (string | undefined)[];

export function cancellationCodes(error: unknown): CancellationCodes | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  return (error.CancellationReasons ?? []).map((reason) => reason.Code);
}

export function isConditionFailure(code: string | undefined): boolean {
  return code === 'ConditionalCheckFailed';
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
