/**
 * The input of `POST /v1/articles/batch` before its items are checked: the rows (each a create's
 * fields, named by its row in the file), `partial`, and the schedule. Each row is checked later
 * exactly as a single create is (create-batch.ts).
 */
import * as z from 'zod/mini';
import { type FieldErrors, ValidationError } from '../errors';
import { formBoolean, optionalField, parseOrThrow } from '../schema-helpers';
import { MAX_BATCH_ITEMS } from './batch';
import { parseSchedule, type ScheduleInput } from './batch-schedule';

export interface BatchRow {
  /** CSV: the line's row in the file (the header is row 1); JSON: the item's index in `items` (from 0). */
  row: number;
  fields: Record<string, unknown>;
  /** Why the row is refused before the create schema reads it (a JSON item that is not an object, a field named twice). */
  errors?: FieldErrors;
}

export interface BatchRequest {
  rows: BatchRow[];
  /** Create the valid rows and list the others, instead of refusing the batch. */
  partial: boolean;
  schedule?: ScheduleInput;
}

const partialSchema = z.object({ partial: z._default(optionalField(formBoolean('partial')), false) });

/** Checks the batch as a whole: 1 to MAX_BATCH_ITEMS rows, `partial`, and the schedule's own fields. */
export function parseBatchRequest(source: {
  rows: BatchRow[];
  partial?: unknown;
  /** `partial` in the query string (`?partial=1`), which the body may also carry. */
  partialInQuery?: unknown;
  schedule?: unknown;
}): BatchRequest {
  if (source.rows.length === 0) {
    throw ValidationError.forField('items', 'The batch has no items: send at least one row.');
  }
  if (source.rows.length > MAX_BATCH_ITEMS) {
    throw ValidationError.forField(
      'items',
      `A batch may hold at most ${MAX_BATCH_ITEMS} items; this one has ${source.rows.length}.`,
    );
  }
  const partial = partialOf(source.partialInQuery, source.partial);
  const schedule =
    source.schedule === undefined || source.schedule === null ? undefined : parseSchedule(source.schedule);
  return { rows: source.rows, partial, ...(schedule ? { schedule } : {}) };
}

/** `partial` from the query string or the body; given in both with different meanings, a 422. */
function partialOf(inQuery: unknown, inBody: unknown): boolean {
  const read = (value: unknown) => parseOrThrow(partialSchema, { partial: value }).partial;
  if (inQuery === undefined) return read(inBody);
  const fromQuery = read(inQuery);
  if (inBody !== undefined && read(inBody) !== fromQuery) {
    throw ValidationError.forField(
      'partial',
      'The partial field is given in the query string and in the body with different values: give it once.',
    );
  }
  return fromQuery;
}
