import { apiHandler } from './http/api-handler';
import { ok } from './http/responses';
import { servedDocument } from './openapi/served-document';

/** `GET /v1/openapi.json`, no token needed. */
export const handler = apiHandler(
  'OpenApiDocument',
  () => ({}),
  async ({ baseUrl }) => ok(servedDocument(baseUrl)),
);
