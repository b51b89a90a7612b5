/** The API serves the generated OpenAPI document: the same bytes the document builder gives. */
import { openApiDocument } from '../../../functions/api/openapi/document';
import { servedDocument } from '../../../functions/api/openapi/served-document';

describe('the served OpenAPI document', () => {
  it.each(['https://api.example.com/prod', 'http://127.0.0.1:3000'])(
    'is what the builder makes for %s',
    (baseUrl) => {
      expect(JSON.stringify(servedDocument(baseUrl))).toBe(JSON.stringify(openApiDocument(baseUrl)));
    },
  );
});
