/**
 * Control characters, for the text rules of `text.ts` and the form fields of `schema-helpers.ts`
 * (kept apart from `text.ts` so that validating a field does not load its HTML parser).
 */

/** Every C0 and C1 control character and DEL (Unicode category Cc). */
export const CONTROL_CHARACTER = /\p{Cc}/u;
/** The same except tab, line feed and carriage return. */
export const CONTROL_EXCEPT_LINE_BREAKS = /(?![\t\n\r])\p{Cc}/u;
