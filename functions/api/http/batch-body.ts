/**
 * The body of `POST /v1/articles/batch`, as rows of create fields:
 *
 * - `application/json`: `{"items": [{...}, ...], "defaults": {...}, "schedule": {...}, "partial": 1}`
 *   or a bare array of items; an item's row is its index in the array (from 0).
 * - `multipart/form-data`: one file part (any name), a CSV whose header row names create fields,
 *   UTF-8 with or without a byte order mark, quoted per RFC 4180 (csv-parse); its rows are
 *   numbered as in the file (the header is row 1, the first item row 2; a quoted value spanning
 *   lines is one row; blank lines are skipped). The other parts: `partial`, the schedule as
 *   `schedule[start]`, `schedule[every]`, ... and any create field, a default for every row that
 *   leaves it empty.
 *
 * Values stay raw (each row is checked by the create schema, create-batch.ts); bytes that are not
 * UTF-8 become UndecodableText (a 422 on their field), as in every other body.
 */
import type { BatchRow } from '../../core/articles/batch-input';
import { createArticleFieldSchemas } from '../../core/articles/create-article-input';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../core/errors';
import { UndecodableText } from '../../core/undecodable-text';
import { MAX_BATCH_BODY_BYTES } from '../../routes';
import { type FormFields, type RawBody, readJson, readMultipartParts } from './form-body';

export interface BatchBody {
  rows: BatchRow[];
  partial?: unknown;
  schedule?: unknown;
}

const REPLACEMENT_CHARACTER = '\uFFFD';
/** Drops a leading byte order mark; bad bytes become U+FFFD. */
const utf8 = new TextDecoder('utf-8');

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
    throw new UnsupportedMediaTypeError(mediaType, encoding);
  }
  if (bytes.length === 0) return { batch: { rows: [] } satisfies BatchBody };
  if (mediaType === 'application/json') return { batch: jsonBatch(bytes) };
  if (mediaType === 'multipart/form-data') return { batch: await multipartBatch(bytes, contentType ?? '') };
  throw new UnsupportedMediaTypeError(mediaType);
}

function jsonBatch(bytes: Buffer): BatchBody {
  const { parsed } = readJson(bytes);
  const envelope: Record<string, unknown> = Array.isArray(parsed)
    ? { items: parsed }
    : parsed !== null && typeof parsed === 'object'
      ? (parsed as Record<string, unknown>)
      : {};
  if (!Array.isArray(envelope.items)) {
    throw ValidationError.forField('items', 'The items field must be a list of create bodies.');
  }
  const defaults = envelope.defaults;
  if (
    defaults !== undefined &&
    (defaults === null || typeof defaults !== 'object' || Array.isArray(defaults))
  ) {
    throw ValidationError.forField('defaults', 'The defaults field must be an object of create fields.');
  }
  const rows = envelope.items.map((item: unknown, index): BatchRow => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      return { row: index, fields: {}, error: 'Each item must be an object of create fields.' };
    }
    return { row: index, fields: withDefaults(marked(item as Record<string, unknown>), defaults) };
  });
  return { rows, partial: envelope.partial, schedule: envelope.schedule };
}

/** A row's fields over the batch's defaults: a field the row leaves out or empty takes the default. */
function withDefaults(fields: Record<string, unknown>, defaults: unknown): Record<string, unknown> {
  if (!defaults) return fields;
  const merged: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && value !== null && value !== '') merged[name] = value;
  }
  return merged;
}

function marked(fields: Record<string, unknown>): Record<string, unknown> {
  const mark = (value: unknown) =>
    typeof value === 'string' && value.includes(REPLACEMENT_CHARACTER) ? new UndecodableText() : value;
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.map(mark) : mark(value),
    ]),
  );
}

const SCHEDULE_PART = /^schedule(?:\[(\w+)\]|\.(\w+))$/;

async function multipartBatch(bytes: Buffer, contentType: string): Promise<BatchBody> {
  const parts = await readMultipartParts(bytes, contentType, MAX_BATCH_BODY_BYTES);
  const files = parts.flatMap((part) => ('file' in part ? [part.file] : []));
  const fields = parts.flatMap((part): [string, string][] =>
    'value' in part ? [[part.name, part.value]] : [],
  );
  if (files.length !== 1) {
    throw ValidationError.forField(
      'file',
      files.length === 0
        ? 'Upload the CSV as a file part (curl -F file=@keywords.csv).'
        : 'Upload one CSV file per batch.',
    );
  }
  const defaults: Record<string, unknown> = {};
  const schedule: Record<string, unknown> = {};
  let partial: unknown;
  for (const [name, value] of fields) {
    const part = SCHEDULE_PART.exec(name);
    if (part) schedule[part[1] ?? part[2] ?? ''] = value;
    else if (name === 'partial') partial = value;
    else defaults[name] = value;
  }
  const rows = csvRows(files[0] as Buffer).map(({ row, fields: cells }) => ({
    row,
    fields: withDefaults(marked(cells), marked(defaults)),
  }));
  return { rows, partial, ...(Object.keys(schedule).length > 0 ? { schedule } : {}) };
}

/** The CSV's rows as create fields, numbered as in the file (the header is row 1). */
function csvRows(file: Buffer): BatchRow[] {
  // Loaded by the first CSV, not at init: only this route parses one.
  const { parse }: typeof import('csv-parse/sync') = require('csv-parse/sync');
  let records: string[][];
  try {
    records = parse(utf8.decode(file), { bom: true, skip_empty_lines: true, relax_column_count: false });
  } catch (error) {
    throw ValidationError.forField(
      'file',
      `The CSV could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const [header, ...lines] = records;
  if (!header)
    throw ValidationError.forField('file', 'The CSV is empty: its first row names the create fields.');
  const names = header.map((name) => name.trim());
  const known = new Set(Object.keys(createArticleFieldSchemas().shape));
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw ValidationError.forField(
      'file',
      `The CSV header names unknown fields: ${unknown.join(', ')}. Its columns are create fields: ${[...known].join(', ')}.`,
    );
  }
  const repeated = names.filter((name, index) => names.indexOf(name) !== index);
  if (repeated.length > 0) {
    throw ValidationError.forField('file', `The CSV header names ${repeated.join(', ')} more than once.`);
  }
  return lines.map((cells, index) => ({
    row: index + 2,
    fields: Object.fromEntries(names.map((name, column) => [name, cells[column] ?? ''])),
  }));
}
