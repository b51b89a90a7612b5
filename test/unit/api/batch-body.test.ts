/** The batch body (`POST /v1/articles/batch`): every object and form part read as a single create's body is. */
import { type BatchBody, parseBatchBody } from '../../../functions/api/http/batch-body';
import {
  JsonSentAsFormError,
  MalformedBodyError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../../functions/core/errors';
import { UndecodableText } from '../../../functions/core/undecodable-text';

const jsonBody = async (body: string | Buffer) =>
  (
    await parseBatchBody({
      body: Buffer.isBuffer(body) ? body.toString('base64') : body,
      isBase64Encoded: Buffer.isBuffer(body),
      contentType: 'application/json',
    })
  ).batch as BatchBody;

/** A CSV upload with other parts, each `[name, value]` sent as it is (a name may repeat). */
const csvBody = async (parts: [string, string][], csv = 'keyword\r\nbread\r\n') => {
  const boundary = 'batch-body-test';
  const body = Buffer.from(
    [
      ...parts.map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      ),
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="k.csv"\r\n\r\n${csv}\r\n--${boundary}--\r\n`,
    ].join(''),
  );
  return (
    await parseBatchBody({
      body: body.toString('base64'),
      isBase64Encoded: true,
      contentType: `multipart/form-data; boundary=${boundary}`,
    })
  ).batch as BatchBody;
};

const refusal = (attempt: Promise<unknown>) => attempt.catch((error: unknown) => error);

describe('a JSON batch body', () => {
  it("refuses a name given twice in an item as that row's 422, the other rows unchanged", async () => {
    const batch = await jsonBody(
      '[{"keyword":"dupkey","h2_count":2,"h\\u0032_count":9},{"keyword":"fine","h2_count":2}]',
    );
    expect(batch.rows).toEqual([
      { row: 0, fields: {}, errors: { h2_count: ['The h2_count field appears more than once.'] } },
      { row: 1, fields: { keyword: 'fine', h2_count: 2 } },
    ]);
    // Names repeated inside a field's value, or across items, are no fields named twice.
    const nested = await jsonBody('{"items":[{"keyword":"a","x":{"b":1,"b":2}},{"keyword":"a"}]}');
    expect(nested.rows.map((row) => row.errors)).toEqual([undefined, undefined]);
  });

  it('refuses a name given twice in defaults, schedule or the body itself with a 422 naming it', async () => {
    const cases: [string, string][] = [
      ['{"items":[{"keyword":"a"}],"defaults":{"h2_count":2,"h2_count":3}}', 'defaults.h2_count'],
      ['{"items":[{"keyword":"a"}],"schedule":{"at":"09:00","at":"10:00"}}', 'schedule.at'],
      ['{"items":[{"keyword":"a"}],"partial":0,"partial":1}', 'partial'],
    ];
    for (const [body, field] of cases) {
      const error = await refusal(jsonBody(body));
      expect(error).toBeInstanceOf(ValidationError);
      expect(Object.keys((error as ValidationError).fieldErrors)).toEqual([field]);
    }
  });

  it('refuses a field name with bytes that are not UTF-8 anywhere a create reads fields (400), and marks bad values', async () => {
    const withBadName = (before: string, after: string) =>
      Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)]);
    for (const body of [
      withBadName('[{"keyword":"a","h2_co', 'unt":2}]'),
      withBadName('{"items":[{"keyword":"a"}],"defaults":{"langu', 'age":"en"}}'),
    ]) {
      await expect(jsonBody(body)).rejects.toThrow(new MalformedBodyError('the body is not valid UTF-8.'));
    }
    const badValue = await jsonBody(
      Buffer.concat([Buffer.from('[{"keyword":"sh'), Buffer.from([0xff]), Buffer.from('oes"}]')]),
    );
    expect(badValue.rows[0]?.fields.keyword).toBeInstanceOf(UndecodableText);
  });

  it('lays a row over the defaults with own properties only', async () => {
    const batch = await jsonBody(
      '{"items":[{"__proto__":{"h2_count":5},"keyword":"a"}],"defaults":{"h2_count":2}}',
    );
    const fields = batch.rows[0]?.fields ?? {};
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(fields.h2_count).toBe(2);
  });
});

describe('a CSV batch body', () => {
  it('keeps a default part sent twice as a list, as a single create form does (refused for one value, kept for a list)', async () => {
    const batch = await csvBody([
      ['h2_count', '2'],
      ['h2_count', '3'],
      ['sources', 'https://example.org/a'],
      ['sources', 'https://example.org/b'],
      ['tags[]', 'x'],
    ]);
    expect(batch.rows[0]?.fields).toEqual({
      keyword: 'bread',
      h2_count: ['2', '3'],
      sources: ['https://example.org/a', 'https://example.org/b'],
      tags: ['x'],
    });
  });

  it('keeps a schedule part sent twice, or as schedule[x] and schedule.x, as a list', async () => {
    const batch = await csvBody([
      ['schedule[weekdays]', 'mon'],
      ['schedule[weekdays]', 'tue'],
      ['schedule[at]', '09:00'],
      ['schedule.at', '10:00'],
      ['schedule[start]', '2026-03-28'],
    ]);
    expect(batch.schedule).toEqual({ weekdays: ['mon', 'tue'], at: ['09:00', '10:00'], start: '2026-03-28' });
  });

  it('numbers rows as a spreadsheet shows the file: a blank row (empty, of spaces or of empty cells) keeps its number and is skipped, a quoted line break is one row; a row of the wrong length is refused alone', async () => {
    const batch = await csvBody(
      [],
      'keyword,h2_count\r\n\r\n  \r\na,1\r\n,\r\nb\r\n"c\nd",2,3\r\ne,4\r\n\r\n',
    );
    expect(batch.rows).toEqual([
      { row: 4, fields: { keyword: 'a', h2_count: '1' } },
      { row: 6, fields: {}, errors: { cells: ['The row has 1 cell where the header has 2.'] } },
      { row: 7, fields: {}, errors: { cells: ['The row has 3 cells where the header has 2.'] } },
      { row: 8, fields: { keyword: 'e', h2_count: '4' } },
    ]);
  });

  it('ignores a header column without a name when it is empty in every row, and names it when it is not', async () => {
    const trailing = await csvBody([], 'keyword,h2_count,\r\na,1,\r\nb,2, \r\n');
    expect(trailing.rows.map((row) => row.fields)).toEqual([
      { keyword: 'a', h2_count: '1' },
      { keyword: 'b', h2_count: '2' },
    ]);
    const error = await refusal(csvBody([], 'keyword,,h2_count\r\na,,1\r\nb,x,2\r\n'));
    expect((error as ValidationError).fieldErrors).toEqual({
      file: [
        "The CSV header's column 2 has no name, and row 3 has a value in it: name the column (a create field) or empty it.",
      ],
    });
  });

  it('refuses a part that is no create field, partial nor a schedule field, naming it', async () => {
    for (const name of ['websit_uuid', 'schedule', 'items']) {
      const error = await refusal(csvBody([[name, 'x']]));
      expect(error).toBeInstanceOf(ValidationError);
      expect(Object.keys((error as ValidationError).fieldErrors)).toEqual([name]);
    }
  });
});

describe('the fields of a JSON batch', () => {
  it('refuses unknown defaults and unknown fields of the body by name; items ignore them as a single create does', async () => {
    const typo = await refusal(jsonBody('{"items":[{"keyword":"a"}],"defaults":{"websit_uuid":"x"}}'));
    expect((typo as ValidationError).fieldErrors).toEqual({
      'defaults.websit_uuid': [expect.stringMatching(/^Unknown field websit_uuid\. /)],
    });
    const envelope = await refusal(jsonBody('{"items":[{"keyword":"a"}],"schedul":{}}'));
    expect(Object.keys((envelope as ValidationError).fieldErrors)).toEqual(['schedul']);
    expect((await jsonBody('[{"keyword":"a","extra":1}]')).rows[0]?.fields).toEqual({
      keyword: 'a',
      extra: 1,
    });
  });

  it('takes a create field beside items as a default for every row, as a form part is with a CSV', async () => {
    const batch = await jsonBody(
      '{"items":[{"keyword":"a"},{"keyword":"b","h2_count":5}],"website_uuid":"w-1","h2_count":2,"defaults":{"language":"en"}}',
    );
    expect(batch.rows.map((row) => row.fields)).toEqual([
      { language: 'en', website_uuid: 'w-1', h2_count: 2, keyword: 'a' },
      { language: 'en', website_uuid: 'w-1', h2_count: 5, keyword: 'b' },
    ]);
    const twice = await refusal(
      jsonBody('{"items":[{"keyword":"a"}],"language":"en","defaults":{"language":"de"}}'),
    );
    expect(Object.keys((twice as ValidationError).fieldErrors)).toEqual(['language']);
  });
});

describe('the content type of a batch body', () => {
  const sent = (body: string, contentType?: string) =>
    refusal(parseBatchBody({ body, isBase64Encoded: false, contentType }));

  it('names only what the batch route reads (no urlencoded form) when it refuses a content type', async () => {
    for (const contentType of ['application/x-www-form-urlencoded', 'text/csv']) {
      const error = await sent('keyword=bread', contentType);
      expect(error).toBeInstanceOf(UnsupportedMediaTypeError);
      expect((error as Error).message).toBe(
        `Unsupported content type "${contentType}". Send multipart/form-data (a CSV file) or application/json.`,
      );
    }
  });

  it('says which header is missing when JSON, an object or an array of items, comes without application/json', async () => {
    for (const [body, contentType] of [
      ['{"items":[{"keyword":"bread"}]}', undefined],
      ['[{"keyword":"bread"}]', 'application/x-www-form-urlencoded'],
    ] as const) {
      const error = await sent(body, contentType);
      expect(error).toBeInstanceOf(JsonSentAsFormError);
      expect((error as Error).message).toMatch(
        /^The body is JSON but .*: send the header Content-Type: application\/json\.$/,
      );
    }
  });
});
