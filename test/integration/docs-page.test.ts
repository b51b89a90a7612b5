/**
 * `GET /docs` (1.4 MB of HTML) as browsers and API Gateway get it: Brotli or gzip as the request
 * allows, an ETag, 304 without a body for the page the browser holds, and the plain page for a
 * request whose Accept API Gateway would not answer with bytes.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler } from '../../functions/api/docs-page';
import { chooseEncoding } from '../../functions/api/http/compressed-page';
import { apiEvent } from '../support/events';

const get = (headers: Record<string, string>) =>
  handler(apiEvent('docs-page', { headers })) as Promise<APIGatewayProxyResult>;
const header = (result: APIGatewayProxyResult, name: string) => {
  const value = result.headers?.[name];
  return value === undefined ? undefined : String(value);
};

describe('GET /docs', () => {
  let plain: APIGatewayProxyResult;
  beforeAll(async () => {
    plain = await get({ Accept: 'text/html' });
  });

  it('answers the page as text without an Accept-Encoding that allows compression', () => {
    expect(plain.statusCode).toBe(200);
    expect(plain.isBase64Encoded).toBeUndefined();
    expect(header(plain, 'Content-Encoding')).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1_000_000);
    expect(header(plain, 'ETag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it.each([
    ['br', 'gzip, deflate, br, zstd', brotliDecompressSync],
    ['gzip', 'gzip, deflate', gunzipSync],
  ] as const)(
    'compresses it with %s for a browser, a third of its size or less',
    async (encoding, accepted, decode) => {
      const result = await get({
        Accept: 'text/html,application/xhtml+xml;q=0.9',
        'Accept-Encoding': accepted,
      });
      expect(result.statusCode).toBe(200);
      expect(result.isBase64Encoded).toBe(true);
      expect(header(result, 'Content-Encoding')).toBe(encoding);
      expect(header(result, 'Vary')).toBe('Accept, Accept-Encoding');
      const bytes = Buffer.from(result.body, 'base64');
      expect(bytes.length).toBeLessThan(plain.body.length / 3);
      expect(decode(bytes).toString('utf8')).toBe(plain.body);
      expect(header(result, 'ETag')).toBe(`${header(plain, 'ETag')?.slice(0, -1)}-${encoding}"`);
    },
  );

  it('answers 304 without a body to the ETag of any of its forms', async () => {
    const tag = header(plain, 'ETag') ?? '';
    for (const held of [tag, `W/${tag}`, `"other", ${tag.slice(0, -1)}-br"`, '*']) {
      const result = await get({ Accept: 'text/html', 'Accept-Encoding': 'br', 'If-None-Match': held });
      expect([result.statusCode, result.body, header(result, 'ETag')]).toEqual([
        304,
        '',
        `${tag.slice(0, -1)}-br"`,
      ]);
    }
    expect((await get({ Accept: 'text/html', 'If-None-Match': '"stale"' })).statusCode).toBe(200);
  });

  it('sends no bytes where API Gateway would pass them on as base64 text (first Accept type not text/html)', async () => {
    const result = await get({ Accept: '*/*', 'Accept-Encoding': 'gzip, br' });
    expect(result.isBase64Encoded).toBeUndefined();
    expect(result.body).toBe(plain.body);
  });

  it('takes the encoding the client weighs highest, and none it refuses', () => {
    expect(chooseEncoding('gzip;q=1, br;q=0.5')).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip')).toBe('gzip');
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('identity')).toBeUndefined();
    expect(chooseEncoding(undefined)).toBeUndefined();
  });
});
