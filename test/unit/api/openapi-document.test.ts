/**
 * The API serves the OpenAPI document built ahead (`functions/api/openapi/openapi.json`): it
 * must be what the route table and the schemas build now, with the caller's server URL.
 */
import { buildOpenApiDocument } from '../../../functions/api/openapi/build-document';
import { openApiDocument } from '../../../functions/api/openapi/document';

describe('the served OpenAPI document', () => {
  it('is the one the schemas build now (run npm run client:generate after an API change)', () => {
    const baseUrl = 'https://api.example.test/prod';
    // Compared as text: the same fields in the same order, as GET /v1/openapi.json writes them.
    expect(JSON.stringify(openApiDocument(baseUrl))).toBe(JSON.stringify(buildOpenApiDocument(baseUrl)));
  });

  it('names the server it is served from', () => {
    expect(openApiDocument('http://127.0.0.1:4000').servers).toEqual([{ url: 'http://127.0.0.1:4000' }]);
  });
});
