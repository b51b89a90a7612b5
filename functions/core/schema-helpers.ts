/**
 * zod building blocks for form fields, which arrive as strings (or JSON values). Written with
 * `zod/mini`: the same checks and messages as zod's full API, a fraction of a handler's bundle.
 */
import * as z from 'zod/mini';
import { CONTROL_CHARACTER, CONTROL_EXCEPT_LINE_BREAKS } from './control-characters';
import { ValidationError } from './errors';
import { decodedText, safeText } from './text';
import { UndecodableText } from './undecodable-text';

/** Runs `prepare` on the raw value before `schema` (zod's `preprocess`, which zod/mini lacks). */
export function preprocess<T extends z.ZodMiniType>(prepare: (value: unknown) => unknown, schema: T) {
  return z.pipe(z.transform(prepare), schema);
}

/**
 * A text field: a string of well-formed Unicode (no lone UTF-16 surrogate, which no site can
 * store) without control characters; `lineBreaks` allows tab, CR and LF in fields whose
 * whitespace collapses. Anything else is a 422 on the field, before anything is stored.
 */
export function formText(label: string, options: TextOptions = {}) {
  const control = controlCharacters(options);
  return z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? `The ${label} field is required.`
          : issue.input instanceof UndecodableText
            ? `The ${label} must be valid UTF-8 text.`
            : Array.isArray(issue.input)
              ? givenOnce(label, 'text')
              : `The ${label} must be text.`,
    })
    .check(
      z.refine((value) => value.isWellFormed(), {
        error: `The ${label} must be valid Unicode text (it contains a lone surrogate).`,
        abort: true,
      }),
      z.refine((value) => !control.test(value), { error: controlMessage(label, options), abort: true }),
    );
}

/** A field sent twice (a form field, a query parameter) or as a JSON list arrives as a list. */
export const givenOnce = (label: string, what: string) => `The ${label} must be one ${what}, given once.`;

interface TextOptions {
  /** Tab, CR and LF allowed (fields whose whitespace collapses). */
  lineBreaks?: boolean;
}

const controlCharacters = (options: TextOptions) =>
  options.lineBreaks ? CONTROL_EXCEPT_LINE_BREAKS : CONTROL_CHARACTER;

const controlMessage = (label: string, options: TextOptions) =>
  options.lineBreaks
    ? `The ${label} may not contain control characters other than tab and line breaks.`
    : `The ${label} may not contain control characters.`;

/**
 * A text field as plain text (`plainText`: markup dropped, character references decoded once).
 * A reference to what the field refuses written out is the same 422: a control character, or
 * U+FFFD, which `&#0;`, a surrogate and a code point past U+10FFFF decode to as well.
 */
export function formPlainText(label: string, options: TextOptions = {}) {
  return z.pipe(
    formText(label, options),
    z.transform((value: string, context) => {
      const decoded = decodedText(value);
      const problem = decodedTextProblem(decoded, label, options);
      if (problem !== undefined) context.issues.push({ code: 'custom', message: problem, input: value });
      return safeText(decoded);
    }),
  );
}

/** Why text decoded from a field's character references is refused, or undefined. */
function decodedTextProblem(decoded: string, label: string, options: TextOptions = {}) {
  if (decoded.includes('\uFFFD')) {
    return `The ${label} may not contain a character reference to U+FFFD or to what decodes to it (&#0;, a surrogate, a code point past U+10FFFF).`;
  }
  if (controlCharacters(options).test(decoded)) return controlMessage(label, options);
  return undefined;
}

/** 1/0, true/false, yes/no, on/off (any case), empty (false) or a JSON boolean. */
export function formBoolean(label: string) {
  return preprocess(
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
    z.boolean({
      error: (issue) =>
        Array.isArray(issue.input)
          ? givenOnce(label, 'true or false value')
          : `The ${label} must be true or false (1 or 0).`,
    }),
  );
}

/** A whole number given as a JSON number or a decimal string. */
export function formInteger(min: number, max: number, label: string) {
  return preprocess(
    (value) => (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value.trim()) : value),
    z
      .number({
        error: (issue) =>
          issue.input === undefined
            ? `The ${label} field is required.`
            : Array.isArray(issue.input)
              ? givenOnce(label, 'whole number')
              : `The ${label} must be a whole number.`,
      })
      .check(
        z.int({ error: `The ${label} must be a whole number.`, abort: true }),
        z.gte(min, { error: `The ${label} must be at least ${min}.` }),
        z.lte(max, { error: `The ${label} may not be greater than ${max}.` }),
      ),
  );
}

/** Empty strings count as absent for optional fields. */
export function optionalField<T extends z.ZodMiniType>(schema: T) {
  return preprocess((value) => (value === '' || value === null ? undefined : value), z.optional(schema));
}

/** Parses with a schema, turning zod issues into a ValidationError keyed by field. */
export function parseOrThrow<T extends z.ZodMiniType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fieldErrors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    // Keyed by the field as the client named it (an item of a list is its field's problem; an
    // unknown field of a strict object is its own).
    const fields =
      issue.code === 'unrecognized_keys'
        ? issue.keys
        : [issue.path.length > 0 ? String(issue.path[0]) : 'body'];
    for (const field of fields) {
      fieldErrors[field] ??= [];
      if (!fieldErrors[field].includes(issue.message)) fieldErrors[field].push(issue.message);
    }
  }
  throw new ValidationError(fieldErrors);
}
