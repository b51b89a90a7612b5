/**
 * A form value whose bytes are not valid UTF-8: the body parser's stand-in (never stored), which
 * the text fields answer with a 422. On its own so that parsing a body needs no schema library.
 */
export class UndecodableText {}
