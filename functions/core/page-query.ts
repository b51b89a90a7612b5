/**
 * The `page` parameter of list routes. A module of its own: only list routes build its schema
 * at their cold start.
 */
import * as z from 'zod/mini';
import { MAX_PAGE } from './pagination';
import { formInteger, optionalField, parseOrThrow } from './schema-helpers';

export const pageSchema = z.object({ page: z._default(optionalField(formInteger(1, MAX_PAGE, 'page')), 1) });

/** The `page` of a list request: query string first, then (for the queue) the form body. */
export function parsePage(...sources: Record<string, unknown>[]): number {
  const page = sources.map((source) => source.page).find((value) => value !== undefined);
  return parseOrThrow(pageSchema, { page }).page;
}
