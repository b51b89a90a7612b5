/**
 * Parses request bodies of create operations: multipart/form-data (as docs/api-contract.md says),
 * application/x-www-form-urlencoded and JSON, all as UTF-8. Values stay raw; the zod schema
 * of each operation decides what they mean. Bytes that are not UTF-8 are never replaced
 * silently: such a value becomes `UndecodableText` (a 422 on its field), in every body type; bad
 * bytes that break the JSON itself, or sit in a field's name, are a 400.
 *
 * A field sent twice is refused (422) in every body: forms keep both copies as a list that schemas
 * reject, JSON objects are checked for repeated names (JSON.parse would keep the last silently).
 *
 * Only multipart bodies reach the function as bytes (base64; the API's one binary media type):
 * API Gateway, like the local runtime, hands other bodies over as text, already decoded, with
 * U+FFFD where bytes were not UTF-8. A replacement character cannot be told from one the client
 * sent, and no field means one, so a value holding U+FFFD counts as undecodable in every body.
 */
import type busboy from 'busboy';
import {
  JsonSentAsFormError,
  MalformedBodyError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../core/errors';
import { UndecodableText } from '../../core/undecodable-text';
import type { RepeatedName } from './repeated-json-names';

export type FormFields = Record<string, unknown>;

/** Largest body accepted by any operation. */
export const MAX_BODY_BYTES = 64 * 1024;

export interface RawBody {
  body: string | null;
  isBase64Encoded: boolean;
  contentType: string | undefined;
  /** The Content-Encoding header: bodies are taken as sent (`identity`) only. */
  contentEncoding?: string | undefined;
}

export async function parseFormBody({
  body,
  isBase64Encoded,
  contentType,
  contentEncoding,
}: RawBody): Promise<FormFields> {
  const bytes = body === null ? Buffer.alloc(0) : Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
  if (bytes.length === 0) return {};

  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const encoding = contentEncoding?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    throw new UnsupportedMediaTypeError(mediaType, encoding);
  }
  switch (mediaType) {
    case 'application/json':
      return parseJson(bytes);
    case 'application/x-www-form-urlencoded':
      if (jsonShapeOf(bytes) === 'object') throw new JsonSentAsFormError(mediaType);
      return markUndecodable(collect(new URLSearchParams(bytes.toString('utf8')).entries()));
    case 'multipart/form-data':
      return markUndecodable(await parseMultipart(bytes, contentType ?? ''));
    default:
      throw jsonShapeOf(bytes) === 'object'
        ? new JsonSentAsFormError(mediaType)
        : new UnsupportedMediaTypeError(mediaType);
  }
}

/**
 * Whether a body is a JSON object or array (undefined: neither): `curl -d '{...}'` sends one as
 * urlencoded, where it would be one nameless field and a 422 on every required one. No form
 * encoder writes a raw `{` or `[`.
 */
export function jsonShapeOf(bytes: Buffer): 'object' | 'array' | undefined {
  const text = utf8.decode(bytes).trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) return 'array';
    return parsed !== null && typeof parsed === 'object' ? 'object' : undefined;
  } catch {
    return undefined;
  }
}

/** What a multipart file part stands in as: a value no text field accepts. */
const FILE_PART = Object.freeze({ file: true });
const REPLACEMENT_CHARACTER = '\uFFFD';
const NOT_UTF8 = 'the body is not valid UTF-8.';
/** Drops a leading byte order mark; bad bytes become U+FFFD (as API Gateway hands text bodies over). */
const utf8 = new TextDecoder('utf-8');

function parseJson(bytes: Buffer): FormFields {
  const { text, parsed } = readJson(bytes);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new MalformedBodyError('a JSON body must be an object.');
  }
  return jsonObjectFields(
    parsed as Record<string, unknown>,
    repeatedFieldNames(text, Object.keys(parsed).length),
  );
}

/**
 * A JSON object's fields as a create reads them: a name with bad bytes is a 400 (no field to
 * name), a name in `repeated` a 422 on `<prefix><name>` (JSON.parse kept its last copy; like a form
 * field sent twice, it is refused instead), values with bad bytes are marked.
 */
export function jsonObjectFields(
  object: Record<string, unknown>,
  repeated: string[],
  prefix = '',
): FormFields {
  if (Object.keys(object).some((name) => name.includes(REPLACEMENT_CHARACTER))) {
    throw new MalformedBodyError(NOT_UTF8);
  }
  if (repeated.length > 0) {
    throw new ValidationError(
      Object.fromEntries(
        repeated.map((name) => [`${prefix}${name}`, [`The ${name} field appears more than once.`]]),
      ),
    );
  }
  return markUndecodable(object);
}

/**
 * A JSON body's text and value, or a 400: JSON that does not parse (bad bytes named when they are
 * why) or that nests deeper than MAX_JSON_DEPTH. Every JSON body is read through it.
 */
export function readJson(bytes: Buffer): { text: string; parsed: unknown } {
  const text = utf8.decode(bytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MalformedBodyError(breaksJsonOnlyByBadBytes(text) ? NOT_UTF8 : 'invalid JSON.');
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new MalformedBodyError(`a JSON body may nest at most ${MAX_JSON_DEPTH} levels deep.`);
  }
  return { text, parsed };
}

/** Whether JSON that does not parse would without its bad bytes (U+FFFD): then they are the fault. */
function breaksJsonOnlyByBadBytes(text: string): boolean {
  if (!text.includes(REPLACEMENT_CHARACTER)) return false;
  try {
    JSON.parse(text.replaceAll(REPLACEMENT_CHARACTER, ''));
    return true;
  } catch {
    return false;
  }
}

/**
 * No field takes more than a list of texts (two levels); a deeper body is refused before anything
 * walks it recursively (the duplicate-name scanner ran out of stack at a few thousand levels).
 */
const MAX_JSON_DEPTH = 32;

/**
 * Whether a JSON text nests objects or arrays more than `limit` deep, counted on the text (one pass,
 * no recursion), so that nesting inside a value a repeated name replaced counts too.
 */
function nestsDeeperThan(json: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < json.length; index++) {
    const char = json[index];
    if (inString) {
      if (char === '\\') index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') {
      if (++depth > limit) return true;
    } else if (char === '}' || char === ']') depth--;
  }
  return false;
}

/**
 * Names that appear more than once in the top-level object of a JSON text. Every name in the
 * text is followed by a colon, so a text with no more colons than the parsed object has names
 * repeats none: most bodies are answered without loading the scanner.
 */
function repeatedFieldNames(json: string, distinctNames: number): string[] {
  if (json.split(':').length - 1 <= distinctNames) return [];
  return repeatedJsonNames(json)
    .filter((entry) => entry.path.length === 0)
    .map((entry) => entry.name);
}

/** The names each object of a JSON text holds more than once, with the object's path. */
export function repeatedJsonNames(json: string): RepeatedName[] {
  // Loaded by the first body that needs it, not at init (jsonc-parser's module costs ~5 ms).
  const { repeatedNames }: typeof import('./repeated-json-names') = require('./repeated-json-names');
  return repeatedNames(json);
}

async function parseMultipart(bytes: Buffer, contentType: string): Promise<FormFields> {
  const parts = await readMultipartParts(bytes, contentType);
  // A file where a field is expected (`curl -F keyword=@notes.txt`) is not text: the field's 422.
  return collect(
    parts.map((part): [string, unknown] => [part.name, 'file' in part ? FILE_PART : part.value]),
  );
}

/** A part of a multipart body: a field's text, or a file's bytes. */
export type MultipartPart = { name: string; value: string } | { name: string; file: Buffer };

/**
 * The parts of a multipart body, in order. Any problem busboy reports is a 400, never an unheard
 * 'error' event: one on a file stream (a body cut off inside a file part) ended the process. No
 * limit of size or count: the body's size bounds them, as for JSON and urlencoded bodies (a limit
 * made busboy cut a value or drop the parts after it silently).
 */
export function readMultipartParts(bytes: Buffer, contentType: string): Promise<MultipartPart[]> {
  // Loaded by the first multipart body, not at init: most requests never use it. require() rather
  // than import(): Jest runs CommonJS, where import() needs an experimental VM flag.
  const createParser: typeof busboy = require('busboy');
  return new Promise((resolve, reject) => {
    const malformed = (error: unknown) =>
      reject(new MalformedBodyError(error instanceof Error ? error.message : 'invalid multipart body.'));
    let parser: busboy.Busboy;
    try {
      parser = createParser({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: { fieldSize: Number.POSITIVE_INFINITY },
      });
    } catch (error) {
      malformed(error);
      return;
    }
    const parts: MultipartPart[] = [];
    parser.on('field', (name, value) => parts.push({ name, value }));
    parser.on('file', (name, stream) => {
      const part = { name, file: Buffer.alloc(0) };
      parts.push(part);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', malformed);
      stream.on('end', () => {
        part.file = Buffer.concat(chunks);
      });
    });
    parser.on('error', malformed);
    parser.on('close', () => resolve(parts));
    parser.end(bytes);
  });
}

/** Every value (or list item) holding U+FFFD becomes `UndecodableText`: a 422 on its field. */
export function markUndecodable(fields: FormFields): FormFields {
  const mark = (value: unknown) =>
    typeof value === 'string' && value.includes(REPLACEMENT_CHARACTER) ? new UndecodableText() : value;
  for (const [name, value] of Object.entries(fields)) {
    fields[name] = Array.isArray(value) ? value.map(mark) : mark(value);
  }
  return fields;
}

/** `name[]` or `name[<n>]`: an item of the list `name`, as PHP and many form encoders send lists. */
const LIST_ITEM = /^(.+)\[\d*\]$/;

/**
 * A field sent twice becomes an array, so that schemas reject it instead of guessing (the fields
 * that take a list accept it). `events[]=a&events[]=b` is the list `events`, even with one item.
 */
export function collect(entries: Iterable<[string, unknown]>): FormFields {
  // A Map, then own properties: a field named `__proto__` or `toString` is a field like any other.
  const fields = new Map<string, unknown>();
  for (const [sentName, value] of entries) {
    const listName = LIST_ITEM.exec(sentName)?.[1];
    const name = listName ?? sentName;
    const previous = fields.get(name);
    if (previous === undefined) fields.set(name, listName ? [value] : value);
    else fields.set(name, Array.isArray(previous) ? [...previous, value] : [previous, value]);
  }
  return Object.fromEntries(fields);
}
