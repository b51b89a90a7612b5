/** zod building blocks for form fields, which arrive as strings (or JSON values). */
import { z } from 'zod';
import { ValidationError } from './errors';
import { MAX_PAGE } from './pagination';
import { CONTROL_CHARACTER, CONTROL_EXCEPT_LINE_BREAKS } from './text';

/** A form value whose bytes are not valid UTF-8 (the body parser's stand-in; never stored). */
export class UndecodableText {}

/**
 * A text field: a string of well-formed Unicode (no lone UTF-16 surrogate, which no site can
 * store) without control characters; `lineBreaks` allows tab, CR and LF in fields whose
 * whitespace collapses. Anything else is a 422 on the field, before anything is stored.
 */
export function formText(label: string, options: { lineBreaks?: boolean } = {}) {
  const control = options.lineBreaks ? CONTROL_EXCEPT_LINE_BREAKS : CONTROL_CHARACTER;
  return z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? `The ${label} field is required.`
          : issue.input instanceof UndecodableText
            ? `The ${label} must be valid UTF-8 text.`
            : `The ${label} must be text.`,
    })
    .refine((value) => value.isWellFormed(), {
      error: `The ${label} must be valid Unicode text (it contains a lone surrogate).`,
      abort: true,
    })
    .refine((value) => !control.test(value), {
      error: options.lineBreaks
        ? `The ${label} may not contain control characters other than tab and line breaks.`
        : `The ${label} may not contain control characters.`,
      abort: true,
    });
}

/** 1/0, true/false, yes/no, on/off (any case), empty (false) or a JSON boolean. */
export function formBoolean(label: string) {
  return z.preprocess(
    (value) => {
      if (typeof value === 'boolean') return value;
      if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : value;
      if (typeof value === 'string') {
        const normalized = value.trim().toLowerCase();
        if (['1', 'true', 'on', 'yes'].includes(normalized)) return true;
        if (['0', 'false', 'off', 'no', ''].includes(normalized)) return false;
      }
      return value;
    },
    z.boolean({ error: `The ${label} must be true or false (1 or 0).` }),
  );
}

/** A whole number given as a JSON number or a decimal string. */
export function formInteger(min: number, max: number, label: string) {
  return z.preprocess(
    (value) => (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value.trim()) : value),
    z
      .number({
        error: (issue) =>
          issue.input === undefined
            ? `The ${label} field is required.`
            : `The ${label} must be a whole number.`,
      })
      .int({ error: `The ${label} must be a whole number.`, abort: true })
      .min(min, { error: `The ${label} must be at least ${min}.` })
      .max(max, { error: `The ${label} may not be greater than ${max}.` }),
  );
}

/** Empty strings count as absent for optional fields. */
export function optionalField<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === '' || value === null ? undefined : value), schema.optional());
}

export const pageSchema = z.object({ page: optionalField(formInteger(1, MAX_PAGE, 'page')).default(1) });

/** Parses with a schema, turning zod issues into a ValidationError keyed by field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fieldErrors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
    fieldErrors[field] ??= [];
    fieldErrors[field].push(issue.message);
  }
  throw new ValidationError(fieldErrors);
}

/** The `page` of a list request: query string first, then (for the queue) the form body. */
export function parsePage(...sources: Record<string, unknown>[]): number {
  const page = sources.map((source) => source.page).find((value) => value !== undefined);
  return parseOrThrow(pageSchema, { page }).page;
}
