/**
 * The `page` parameter of list routes. A module of its own: only list routes build its schema
 * at their cold start.
 */
import * as z from 'zod/mini';
import { ValidationError } from './errors';
import { MAX_PAGE } from './pagination';
import { formInteger, optionalField, parseOrThrow } from './schema-helpers';

export const pageSchema = z.object({ page: z._default(optionalField(formInteger(1, MAX_PAGE, 'page')), 1) });

/** The `page` of a list request: from the query string or (for the queue) the form body, not both. */
export function parsePage(...sources: Record<string, unknown>[]): number {
  // An empty value is no value, as in every optional field (an HTML form sends `page=`).
  const given = sources.map((source) => source.page).filter((value) => value !== undefined && value !== '');
  if (given.length > 1) {
    throw ValidationError.forField(
      'page',
      'The page may be given in the query string or the body, not both.',
    );
  }
  return parseOrThrow(pageSchema, { page: given[0] }).page;
}
