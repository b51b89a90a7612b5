/**
 * The OpenAPI document the API serves: `openapi.json`, built ahead from the schemas by
 * `build-document.ts` (`npm run client:generate`; a unit test fails while it is out of date).
 */
import document from './openapi.json';

/** The document, for a server at `baseUrl`. */
export function openApiDocument(baseUrl: string) {
  return { ...document, servers: [{ url: baseUrl }] };
}
