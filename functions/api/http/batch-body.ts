/**
 * The body of `POST /v1/articles/batch`, as rows of create fields:
 *
 * - `application/json`: `{"items": [{...}, ...], "defaults": {...}, "schedule": {...}, "partial": 1}`
 *   or a bare array of items; an item's row is its index in the array (from 0). A create field
 *   beside `items` (`"website_uuid": ...`) is a default, as a form part is with a CSV.
 * - `multipart/form-data`: one file part (any name), a CSV whose header row names create fields,
 *   UTF-8 with or without a byte order mark, quoted per RFC 4180 (csv-parse); its rows are
 *   numbered as a spreadsheet shows the file (the header is row 1, the first item row 2; a quoted
 *   value spanning lines is one row; a blank row, empty or of spaces, keeps its number and is
 *   skipped; a row with the wrong number of cells is that row's error). The other parts: `partial`, the schedule as
 *   `schedule[start]`, `schedule[every]`, ... and any create field, a default for every row that
 *   leaves it empty.
 *
 * Values stay raw (each row is checked by the create schema, create-batch.ts); bytes that are not
 * UTF-8 become UndecodableText (a 422 on their field), as in every other body.
 */
import type { BatchRow } from '../../core/articles/batch-input';
import { createArticleFieldSchemas } from '../../core/articles/create-article-input';
import {
  JsonSentAsFormError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../core/errors';
import { MAX_BATCH_BODY_BYTES } from '../../routes';
import {
  collect,
  type FormFields,
  jsonObjectFields,
  jsonShapeOf,
  markUndecodable,
  type RawBody,
  readJson,
  readMultipartParts,
  repeatedJsonNames,
} from './form-body';

export interface BatchBody {
  rows: BatchRow[];
  partial?: unknown;
  schedule?: unknown;
}

/** Drops a leading byte order mark; bad bytes become U+FFFD. */
const utf8 = new TextDecoder('utf-8');

/** What the batch route reads: no urlencoded form, which cannot carry a file or a list of items. */
const BATCH_MEDIA_TYPES = 'multipart/form-data (a CSV file) or application/json';

/** Parses the batch body into `{ batch: BatchBody }` (the handler's fields). */
export async function parseBatchBody({
  body,
  isBase64Encoded,
  contentType,
  contentEncoding,
}: RawBody): Promise<FormFields> {
  const bytes = body === null ? Buffer.alloc(0) : Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length > MAX_BATCH_BODY_BYTES) throw new PayloadTooLargeError(MAX_BATCH_BODY_BYTES);
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const encoding = contentEncoding?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    throw new UnsupportedMediaTypeError(mediaType, encoding, BATCH_MEDIA_TYPES);
  }
  if (bytes.length === 0) return { batch: { rows: [] } satisfies BatchBody };
  if (mediaType === 'application/json') return { batch: jsonBatch(bytes) };
  if (mediaType === 'multipart/form-data') return { batch: await multipartBatch(bytes, contentType ?? '') };
  // `curl -d '{"items": ...}'` sends JSON as a urlencoded form: say which header it lacks.
  throw jsonShapeOf(bytes) !== undefined
    ? new JsonSentAsFormError(mediaType)
    : new UnsupportedMediaTypeError(mediaType, undefined, BATCH_MEDIA_TYPES);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Every object a create reads fields from (the body, `defaults`, `schedule`, each item) is read
 * as a single create's body is (`jsonObjectFields`): a name with bad bytes is a 400, a name given
 * twice a 422 (an item's: that row's), values with bad bytes are marked.
 */
function jsonBatch(bytes: Buffer): BatchBody {
  const { text, parsed } = readJson(bytes);
  const repeatedAt = repeatedNamesByPath(text, parsed);
  const bare = Array.isArray(parsed);
  const envelope: Record<string, unknown> = bare
    ? { items: parsed }
    : isObject(parsed)
      ? jsonObjectFields(parsed, repeatedAt([]))
      : {};
  // A create field beside `items` is a default for every row, as a form part is in a CSV upload.
  const bodyFieldNames = Object.keys(envelope).filter((name) => !BATCH_FIELDS.includes(name));
  refuseUnknown(
    unknownFields(bodyFieldNames),
    (name) => name,
    `The batch has no such field: its fields are ${BATCH_FIELDS.join(', ')} and create fields (defaults for every row).`,
  );
  if (!Array.isArray(envelope.items)) {
    throw ValidationError.forField('items', 'The items field must be a list of create bodies.');
  }
  if (envelope.defaults !== undefined && !isObject(envelope.defaults)) {
    throw ValidationError.forField('defaults', 'The defaults field must be an object of create fields.');
  }
  if (envelope.defaults) {
    jsonObjectFields(envelope.defaults, repeatedAt(['defaults']), 'defaults.');
    refuseUnknown(
      unknownFields(Object.keys(envelope.defaults)),
      (name) => `defaults.${name}`,
      NOT_A_CREATE_FIELD,
    );
  }
  const defaults = bodyDefaults(envelope, bodyFieldNames);
  if (isObject(envelope.schedule)) jsonObjectFields(envelope.schedule, repeatedAt(['schedule']), 'schedule.');
  const rows = envelope.items.map((item: unknown, index): BatchRow => {
    if (!isObject(item)) {
      return { row: index, fields: {}, errors: { item: ['Each item must be an object of create fields.'] } };
    }
    try {
      const fields = jsonObjectFields(item, repeatedAt(bare ? [index] : ['items', index]));
      return { row: index, fields: withDefaults(fields, defaults) };
    } catch (error) {
      if (error instanceof ValidationError) return { row: index, fields: {}, errors: error.fieldErrors };
      throw error;
    }
  });
  return { rows, partial: envelope.partial, schedule: envelope.schedule };
}

/**
 * The names each object of a parsed JSON text holds more than once, by the object's path. Every
 * name in the text is followed by a colon, so a text with no more colons than the parsed value
 * has names repeats none (as form-body.ts's check of a single create's body).
 */
function repeatedNamesByPath(json: string, parsed: unknown): (path: (string | number)[]) => string[] {
  if (json.split(':').length - 1 <= namesIn(parsed)) return () => [];
  const repeated = repeatedJsonNames(json);
  return (path) => {
    const key = JSON.stringify(path);
    return repeated.filter((entry) => JSON.stringify(entry.path) === key).map((entry) => entry.name);
  };
}

/** How many names the objects of a parsed JSON value hold (without recursion). */
function namesIn(value: unknown): number {
  let count = 0;
  const pending = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object') continue;
    if (!Array.isArray(next)) count += Object.keys(next).length;
    pending.push(...Object.values(next));
  }
  return count;
}

const BATCH_FIELDS = ['items', 'defaults', 'schedule', 'partial'];
const NOT_A_CREATE_FIELD =
  'A default is a create field for every row, and this is none (see POST /v1/articles/create).';

/** `defaults` with the create fields given beside `items`; one given in both places is a 422. */
function bodyDefaults(
  envelope: Record<string, unknown>,
  bodyFieldNames: string[],
): Record<string, unknown> | undefined {
  const listed = envelope.defaults as Record<string, unknown> | undefined;
  if (bodyFieldNames.length === 0) return listed;
  const twice = bodyFieldNames.filter((name) => listed !== undefined && Object.hasOwn(listed, name));
  if (twice.length > 0) {
    throw new ValidationError(
      Object.fromEntries(
        twice.map((name) => [
          name,
          [`The ${name} field is given both beside items and in defaults: give it once.`],
        ]),
      ),
    );
  }
  return Object.fromEntries([
    ...Object.entries(listed ?? {}),
    ...bodyFieldNames.map((name) => [name, envelope[name]]),
  ]);
}

/** Names that are no create field: unlike a single create's, a batch's defaults refuse them (a typo would miss every row). */
function unknownFields(names: string[]): string[] {
  const known = createArticleFieldSchemas().shape;
  return names.filter((name) => !Object.hasOwn(known, name));
}

/** A 422 naming each unknown field (keyed by `key(name)`), when there is one. */
function refuseUnknown(names: string[], key: (name: string) => string, hint: string): void {
  if (names.length === 0) return;
  throw new ValidationError(
    Object.fromEntries(names.map((name) => [key(name), [`Unknown field ${name}. ${hint}`]])),
  );
}

/**
 * A row's fields over the batch's defaults: a field the row leaves out or empty takes the default.
 * Own properties only, whatever the names (`__proto__` is a name like any other).
 */
function withDefaults(fields: Record<string, unknown>, defaults: Record<string, unknown> | undefined) {
  if (!defaults) return fields;
  const given = Object.entries(fields).filter(
    ([, value]) => value !== undefined && value !== null && value !== '',
  );
  return Object.fromEntries([...Object.entries(defaults), ...given]);
}

const SCHEDULE_PART = /^schedule(?:\[(\w+)\]|\.(\w+))$/;

/**
 * The parts other than the file are read as a single create's form (`collect`): a name sent twice
 * or as `name[]` is a list, which the create schema refuses for a field that takes one value and
 * keeps for a list (`sources`, `schedule[weekdays]`).
 */
async function multipartBatch(bytes: Buffer, contentType: string): Promise<BatchBody> {
  const parts = await readMultipartParts(bytes, contentType);
  const files = parts.flatMap((part) => ('file' in part ? [part.file] : []));
  if (files.length !== 1) {
    throw ValidationError.forField(
      'file',
      files.length === 0
        ? 'Upload the CSV as a file part (curl -F file=@keywords.csv).'
        : 'Upload one CSV file per batch.',
    );
  }
  const fields = markUndecodable(
    collect(parts.flatMap((part): [string, string][] => ('value' in part ? [[part.name, part.value]] : []))),
  );
  const defaults = new Map<string, unknown>();
  const schedule = new Map<string, unknown>();
  let partial: unknown;
  for (const [name, value] of Object.entries(fields)) {
    const part = SCHEDULE_PART.exec(name);
    if (part) {
      // `schedule[at]` and `schedule.at` both sent: a list, as one name sent twice.
      const key = part[1] ?? part[2] ?? '';
      const earlier = schedule.get(key);
      schedule.set(key, earlier === undefined ? value : [earlier, value].flat());
    } else if (name === 'partial') partial = value;
    else defaults.set(name, value);
  }
  refuseUnknown(
    unknownFields([...defaults.keys()]),
    (name) => name,
    'The other parts of a CSV upload are create fields (a default for every row), partial and schedule[start], schedule[every], schedule[at], schedule[timezone], schedule[weekdays].',
  );
  const rows = csvRows(files[0] as Buffer).map((row) =>
    row.errors
      ? row
      : { row: row.row, fields: withDefaults(markUndecodable(row.fields), Object.fromEntries(defaults)) },
  );
  return { rows, partial, ...(schedule.size > 0 ? { schedule: Object.fromEntries(schedule) } : {}) };
}

/** The CSV's rows as create fields, numbered as a spreadsheet shows the file (the header is row 1). */
function csvRows(file: Buffer): BatchRow[] {
  // Loaded by the first CSV, not at init: only this route parses one.
  const { parse }: typeof import('csv-parse/sync') = require('csv-parse/sync');
  let records: string[][];
  try {
    // Records of any length: a row with the wrong number of cells is that row's error, not the file's.
    // Blank lines kept as records: they are rows of the file, numbered, then skipped.
    records = parse(utf8.decode(file), { bom: true, skip_empty_lines: false, relax_column_count: true });
  } catch (error) {
    throw ValidationError.forField(
      'file',
      `The CSV could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // Numbered as a spreadsheet shows the file (a quoted value spanning lines is one row); a blank
  // row (empty, only spaces or only empty cells) keeps its number and is skipped.
  const [first, ...filled] = records
    .map((cells, index) => ({ cells, row: index + 1 }))
    .filter(({ cells }) => cells.some((cell) => cell.trim() !== ''));
  const header = first?.cells;
  if (!header)
    throw ValidationError.forField('file', 'The CSV is empty: its first row names the create fields.');
  const names = header.map((name) => name.trim());
  // A column without a name (a trailing comma) is ignored when it is empty in every row.
  for (const [column, name] of names.entries()) {
    if (name !== '') continue;
    const using = filled.find(({ cells }) => (cells[column] ?? '').trim() !== '');
    if (using) {
      throw ValidationError.forField(
        'file',
        `The CSV header's column ${column + 1} has no name, and row ${using.row} has a value in it: name the column (a create field) or empty it.`,
      );
    }
  }
  const named = names.filter((name) => name !== '');
  const known = Object.keys(createArticleFieldSchemas().shape);
  const unknown = unknownFields(named);
  if (unknown.length > 0) {
    throw ValidationError.forField(
      'file',
      `The CSV header names unknown fields: ${unknown.join(', ')}. Its columns are create fields: ${known.join(', ')}.`,
    );
  }
  const repeated = named.filter((name, index) => named.indexOf(name) !== index);
  if (repeated.length > 0) {
    throw ValidationError.forField('file', `The CSV header names ${repeated.join(', ')} more than once.`);
  }
  return filled.map(({ cells, row }): BatchRow => {
    if (cells.length !== names.length) {
      return {
        row,
        fields: {},
        errors: {
          cells: [
            `The row has ${cells.length} ${cells.length === 1 ? 'cell' : 'cells'} where the header has ${names.length}.`,
          ],
        },
      };
    }
    return {
      row,
      fields: Object.fromEntries(
        names.flatMap((name, column) => (name === '' ? [] : [[name, cells[column] ?? '']])),
      ),
    };
  });
}
