/**
 * The OpenAPI document the API serves: the one `npm run client:generate` builds from the route
 * table and the schemas (document.ts) and commits, which test/unit/api/typed-client.test.ts keeps
 * current. Serving the generated file keeps the document builder (zod-openapi) out of the
 * functions; it is copied next to their bundles (`bundledFiles` in the route table).
 */
import { readBundledFile } from '../../shared/bundled-files';

/** Relative to the repository root. */
export const OPENAPI_DOCUMENT_FILE = 'clients/typescript/openapi.json';

let generated: Record<string, unknown> | undefined;

/** The document, with the API root the client used as its server. */
export function servedDocument(baseUrl: string): Record<string, unknown> {
  generated ??= JSON.parse(readBundledFile(OPENAPI_DOCUMENT_FILE)) as Record<string, unknown>;
  return { ...generated, servers: [{ url: baseUrl }] };
}
