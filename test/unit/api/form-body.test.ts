import { gzipSync } from 'node:zlib';
import { MAX_BODY_BYTES, parseFormBody, readMultipartParts } from '../../../functions/api/http/form-body';
import { createArticleSchema } from '../../../functions/core/articles/create-article-input';
import {
  MalformedBodyError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../../functions/core/errors';
import { parseOrThrow } from '../../../functions/core/schema-helpers';
import { UndecodableText } from '../../../functions/core/undecodable-text';
import { multipartBody } from '../../support/multipart';

describe('form body parsing', () => {
  it('reads multipart fields as UTF-8, from a base64 body, whatever the header casing', async () => {
    const { body, contentType } = multipartBody({ keyword: 'crème brûlée, 東京', h2_count: '3' });
    const fields = await parseFormBody({ body: body.toString('base64'), isBase64Encoded: true, contentType });
    expect(fields).toEqual({ keyword: 'crème brûlée, 東京', h2_count: '3' });
  });

  it('reads urlencoded and JSON bodies', async () => {
    expect(
      await parseFormBody({
        body: 'keyword=caf%C3%A9&draft=1',
        isBase64Encoded: false,
        contentType: 'application/x-www-form-urlencoded; charset=utf-8',
      }),
    ).toEqual({ keyword: 'café', draft: '1' });
    expect(
      await parseFormBody({
        body: '{"h2_count":3,"draft":true}',
        isBase64Encoded: false,
        contentType: 'application/json',
      }),
    ).toEqual({ h2_count: 3, draft: true });
  });

  it('keeps a repeated field as an array so that validation rejects it', async () => {
    const fields = await parseFormBody({
      body: 'keyword=a&keyword=b',
      isBase64Encoded: false,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(fields.keyword).toEqual(['a', 'b']);
    const twice = await parseFormBody({
      body: 'keyword=a&keyword=b&h2_count=2&h2_count=3&need_bold=1&need_bold=0&ai_model=gpt-4&language=en',
      isBase64Encoded: false,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(
      createArticleSchema()
        .safeParse(twice)
        .error?.issues.map((issue) => issue.message),
    ).toEqual([
      'The keyword must be one text, given once.',
      'The h2_count must be one whole number, given once.',
      'The need_bold must be one true or false value, given once.',
    ]);
  });

  it('reads name[] and name[<n>] as the list name (PHP-style form lists), even with one item', async () => {
    const form = (body: string) =>
      parseFormBody({ body, isBase64Encoded: false, contentType: 'application/x-www-form-urlencoded' });
    expect(await form('events%5B%5D=article.generated&events%5B%5D=article.failed')).toEqual({
      events: ['article.generated', 'article.failed'],
    });
    expect(await form('events[0]=article.published&events[1]=website.unhealthy&url=x')).toEqual({
      events: ['article.published', 'website.unhealthy'],
      url: 'x',
    });
    expect(await form('events[]=article.generated')).toEqual({ events: ['article.generated'] });
    const { body, contentType } = multipartBody({ 'events[]': 'article.failed' });
    expect(
      await parseFormBody({ body: body.toString('base64'), isBase64Encoded: true, contentType }),
    ).toEqual({
      events: ['article.failed'],
    });
    // A field that takes one value, sent as a list, is refused as sent twice would be.
    const listed = await form('keyword[]=a&h2_count=2&ai_model=gpt-4&language=en');
    expect(
      createArticleSchema()
        .safeParse(listed)
        .error?.issues.map((issue) => issue.message),
    ).toEqual(['The keyword must be one text, given once.']);
  });

  it('reads fields named like Object.prototype members as plain fields', async () => {
    const fields = await parseFormBody({
      body: '__proto__=a&toString=b&hasOwnProperty=c&constructor[]=d',
      isBase64Encoded: false,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(Object.entries(fields)).toEqual([
      ['__proto__', 'a'],
      ['toString', 'b'],
      ['hasOwnProperty', 'c'],
      ['constructor', ['d']],
    ]);
  });

  it('takes a file part where a field is expected as no text: the field is refused, not missing', async () => {
    const boundary = 'inkpress-file-part';
    const body = [
      `--${boundary}\r\nContent-Disposition: form-data; name="keyword"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\nbread\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="h2_count"\r\n\r\n3\r\n`,
      `--${boundary}--\r\n`,
    ].join('');
    const fields = await parseFormBody({
      body,
      isBase64Encoded: false,
      contentType: `multipart/form-data; boundary=${boundary}`,
    });
    expect(fields.h2_count).toBe('3');
    expect(typeof fields.keyword).not.toBe('string');
    let refused: unknown;
    try {
      parseOrThrow(createArticleSchema(), { ...fields, ai_model: 'gpt-4', language: 'en' });
    } catch (error) {
      refused = error;
    }
    expect((refused as ValidationError).fieldErrors).toEqual({ keyword: ['The keyword must be text.'] });
  });

  it('reads every multipart field, however many: a field repeated after fifty others is still seen twice', async () => {
    const fillers = Object.fromEntries(Array.from({ length: 60 }, (_, n) => [`filler_${n}`, 'x']));
    const { body, contentType } = multipartBody({ keyword: 'first', ...fillers });
    // The same name again at the end (an object cannot hold it twice).
    const repeated = body
      .toString('utf8')
      .replace(
        /--(\S+)--\r\n$/,
        '--$1\r\nContent-Disposition: form-data; name="keyword"\r\n\r\nsecond\r\n--$1--\r\n',
      );
    const fields = await parseFormBody({ body: repeated, isBase64Encoded: false, contentType });
    expect(fields.keyword).toEqual(['first', 'second']);
    expect(fields.filler_59).toBe('x');
  });

  it('refuses a JSON object naming a field twice (escaped or not), as a form sending it twice', async () => {
    const json = (body: string) =>
      parseFormBody({ body, isBase64Encoded: false, contentType: 'application/json' });
    const refusal = await json('{"keyword":"a","h2_count":1,"h\\u0032_count":9}').catch(
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ValidationError);
    expect((refusal as ValidationError).fieldErrors).toEqual({
      h2_count: ['The h2_count field appears more than once.'],
    });
    // Colons inside values do not hide a repeat, nor make one.
    const withColons = await json('{"url":"https://a.example:8443/x","url":"https://b.example"}').catch(
      (error: unknown) => error,
    );
    expect((withColons as ValidationError).fieldErrors).toEqual({
      url: ['The url field appears more than once.'],
    });
    expect(await json('{"publish_at":"2026-12-01T09:30:00Z","keyword":"a:b"}')).toEqual({
      publish_at: '2026-12-01T09:30:00Z',
      keyword: 'a:b',
    });
    // Names repeated inside nested objects, or in different objects of a list, are not fields.
    expect(await json('{"tags":[{"a":1},{"a":2}],"x":{"b":1,"c":{"b":2}}}')).toEqual({
      tags: [{ a: 1 }, { a: 2 }],
      x: { b: 1, c: { b: 2 } },
    });
  });

  it('refuses a JSON body nested deeper than any field takes (32 levels) with a 400, however deep', async () => {
    const json = (body: string) =>
      parseFormBody({ body, isBase64Encoded: false, contentType: 'application/json' });
    const nested = (levels: number) => `{"keyword":"a","x":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;
    // 8,000 levels overflowed the stack of the duplicate-name scanner: a 500.
    for (const levels of [32, 8_000]) {
      const refusal = await json(nested(levels)).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(MalformedBodyError);
      expect((refusal as Error).message).toBe(
        'The request body could not be parsed: a JSON body may nest at most 32 levels deep.',
      );
    }
    // Nesting inside a value a repeated name replaced counts too (the parsed object no longer has it).
    const hidden = (levels: number) => `{"tags":${'['.repeat(levels)}"a"${']'.repeat(levels)},"tags":1}`;
    for (const levels of [33, 20_000]) {
      await expect(json(hidden(levels))).rejects.toBeInstanceOf(MalformedBodyError);
    }
    await expect(json(hidden(20))).rejects.toBeInstanceOf(ValidationError);
    // Brackets, braces and escaped quotes inside strings are text, not nesting.
    const inText = `{"keyword":"${'[{\\"'.repeat(100)}"}`;
    expect(await json(inText)).toEqual({ keyword: '[{"'.repeat(100) });
    expect(await json(nested(30))).toMatchObject({ keyword: 'a' });
  });

  it('takes bodies as sent only: a compressed body is a 415 naming its encoding, not a garbled 400', async () => {
    const body = gzipSync('{"keyword":"a"}').toString('base64');
    const refusal = await parseFormBody({
      body,
      isBase64Encoded: true,
      contentType: 'application/json',
      contentEncoding: 'gzip',
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UnsupportedMediaTypeError);
    expect((refusal as Error).message).toMatch(
      /^Unsupported content encoding "gzip": send the body uncompressed\./,
    );
    expect(
      await parseFormBody({
        body: '{"keyword":"a"}',
        isBase64Encoded: false,
        contentType: 'application/json',
        contentEncoding: 'Identity',
      }),
    ).toEqual({ keyword: 'a' });
  });

  it('answers a JSON object sent as a form or without a content type with a hint, not a field-by-field 422', async () => {
    const body = '{"keyword":"bread","h2_count":2}';
    for (const contentType of ['application/x-www-form-urlencoded', undefined, 'text/plain;charset=UTF-8']) {
      const refusal = await parseFormBody({ body, isBase64Encoded: false, contentType }).catch(
        (error: unknown) => error,
      );
      expect(refusal).toBeInstanceOf(UnsupportedMediaTypeError);
      expect((refusal as Error).message).toMatch(/^The body is JSON but /);
      expect((refusal as Error).message).toContain('send the header Content-Type: application/json.');
    }
    // A form that only looks like JSON at first is still a form.
    expect(
      await parseFormBody({
        body: '{keyword=a',
        isBase64Encoded: false,
        contentType: 'application/x-www-form-urlencoded',
      }),
    ).toEqual({ '{keyword': 'a' });
  });

  it('treats an empty body as no fields', async () => {
    expect(await parseFormBody({ body: null, isBase64Encoded: false, contentType: undefined })).toEqual({});
  });

  it('refuses oversized, unknown and malformed bodies with named errors', async () => {
    await expect(
      parseFormBody({
        body: 'x'.repeat(MAX_BODY_BYTES + 1),
        isBase64Encoded: false,
        contentType: 'application/json',
      }),
    ).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(
      parseFormBody({ body: '<a/>', isBase64Encoded: false, contentType: 'text/xml' }),
    ).rejects.toBeInstanceOf(UnsupportedMediaTypeError);
    await expect(
      parseFormBody({ body: '[1,2]', isBase64Encoded: false, contentType: 'application/json' }),
    ).rejects.toBeInstanceOf(MalformedBodyError);
    await expect(
      parseFormBody({ body: 'abc', isBase64Encoded: false, contentType: 'multipart/form-data' }),
    ).rejects.toBeInstanceOf(MalformedBodyError);
  });

  it('refuses a multipart body cut off inside a file part with a 400, as one cut inside a field', async () => {
    const head = (file: boolean) =>
      `--XX\r\nContent-Disposition: form-data; name="keyword"${file ? '; filename="a.txt"' : ''}\r\n\r\n`;
    for (const body of [`${head(true)}bread\r\nabc`, `${head(false)}bread\r\nabc`]) {
      await expect(
        parseFormBody({ body, isBase64Encoded: false, contentType: 'multipart/form-data; boundary=XX' }),
      ).rejects.toThrow(new MalformedBodyError('Unexpected end of form'));
    }
  });

  it('reads multipart parts in order, files as bytes, never cutting a part short (the body size bounds them)', async () => {
    // Over busboy's default limit of a field (1 MiB), which cut it silently.
    const big = 'x'.repeat(1_500_000);
    const body = Buffer.from(
      `--XX\r\nContent-Disposition: form-data; name="a"\r\n\r\n${big}\r\n--XX\r\nContent-Disposition: form-data; name="b"; filename="b.csv"\r\n\r\n${big}\r\n--XX--\r\n`,
    );
    const parts = await readMultipartParts(body, 'multipart/form-data; boundary=XX');
    // The file's bytes compared as one string: Jest compares a Buffer byte by byte (~12 s here).
    const read = parts.map((part) =>
      'file' in part ? { ...part, file: part.file.toString('latin1') } : part,
    );
    expect(read).toEqual([
      { name: 'a', value: big },
      { name: 'b', file: big },
    ]);
    expect(parts.map((part) => 'file' in part && Buffer.isBuffer(part.file))).toEqual([false, true]);
  });

  it('marks a form value whose bytes are not UTF-8, never replacing them silently', async () => {
    const surrogateBytes = Buffer.from([0xed, 0xa0, 0x80]);
    const { body, contentType } = multipartBody({ title: 'TITLE', keyword: 'bread' });
    const broken = Buffer.from(
      body.toString('latin1').replace('TITLE', surrogateBytes.toString('latin1')),
      'latin1',
    );
    const fields = await parseFormBody({
      body: broken.toString('base64'),
      isBase64Encoded: true,
      contentType,
    });
    expect(fields.title).toBeInstanceOf(UndecodableText);
    expect(fields.keyword).toBe('bread');

    const urlencoded = await parseFormBody({
      body: 'title=%ED%A0%80&keyword=%C3%A9',
      isBase64Encoded: false,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(urlencoded.title).toBeInstanceOf(UndecodableText);
    expect(urlencoded.keyword).toBe('é');
  });

  it('marks every value holding U+FFFD: a text body arrives with it in place of bytes that were not UTF-8', async () => {
    // What API Gateway and the local runtime hand over for `keyword=sh\xffoes&title=Bread`.
    const substituted = await parseFormBody({
      body: 'keyword=sh\uFFFDoes&title=Bread',
      isBase64Encoded: false,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(substituted.keyword).toBeInstanceOf(UndecodableText);
    expect(substituted.title).toBe('Bread');

    const sent = await parseFormBody({
      body: 'title=%EF%BF%BD&tags=a&tags=b%EF%BF%BD',
      isBase64Encoded: false,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(sent.title).toBeInstanceOf(UndecodableText);
    expect(sent.tags).toEqual(['a', expect.any(UndecodableText)]);

    const escaped = await parseFormBody({
      body: '{"keyword":"sh\\ufffdoes","h2_count":1}',
      isBase64Encoded: false,
      contentType: 'application/json',
    });
    expect(escaped.keyword).toBeInstanceOf(UndecodableText);
    expect(escaped.h2_count).toBe(1);
  });

  it('marks a JSON value whose bytes were not UTF-8, raw or substituted, as the form values are', async () => {
    const rawBytes = Buffer.concat([
      Buffer.from('{"title":"sh'),
      Buffer.from([0xff]),
      Buffer.from('oes","tags":["a","b'),
      Buffer.from([0xc3]),
      Buffer.from('"],"h2_count":2}'),
    ]);
    const fromBytes = await parseFormBody({
      body: rawBytes.toString('base64'),
      isBase64Encoded: true,
      contentType: 'application/json',
    });
    expect(fromBytes.title).toBeInstanceOf(UndecodableText);
    expect(fromBytes.tags).toEqual(['a', expect.any(UndecodableText)]);
    expect(fromBytes.h2_count).toBe(2);

    const substituted = await parseFormBody({
      body: '{"keyword":"sh\uFFFDoes","h2_count":1}',
      isBase64Encoded: false,
      contentType: 'application/json',
    });
    expect(substituted.keyword).toBeInstanceOf(UndecodableText);
  });

  const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => Buffer.from(part)));

  it.each([
    ['between the tokens', bytes('{"title":"a",', [0xff], '"h2_count":1}')],
    ['in a field name', bytes('{"ti', [0xff], 'tle":"a"}')],
    // Not "appears more than once", which would name a field the client never wrote.
    ['in two field names that read the same', bytes('{"ti', [0xff], 'tle":"a","ti', [0xfe], 'tle":"b"}')],
  ])('refuses a JSON body with bytes that are not UTF-8 %s (400, no field to name)', async (_where, body) => {
    await expect(
      parseFormBody({
        body: body.toString('base64'),
        isBase64Encoded: true,
        contentType: 'application/json',
      }),
    ).rejects.toThrow(new MalformedBodyError('the body is not valid UTF-8.'));
  });

  it('calls JSON that is broken apart from its bad bytes invalid JSON, not bad UTF-8', async () => {
    const body = bytes('{"title":"sh', [0xff], 'oes",}');
    await expect(
      parseFormBody({
        body: body.toString('base64'),
        isBase64Encoded: true,
        contentType: 'application/json',
      }),
    ).rejects.toThrow(new MalformedBodyError('invalid JSON.'));
  });

  it('reads a JSON body that starts with a UTF-8 byte order mark', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"title":"Bread"}')]);
    await expect(
      parseFormBody({
        body: body.toString('base64'),
        isBase64Encoded: true,
        contentType: 'application/json',
      }),
    ).resolves.toEqual({ title: 'Bread' });
  });
});
