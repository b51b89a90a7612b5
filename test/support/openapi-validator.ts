/**
 * Checks response bodies against the response schemas of the OpenAPI document (JSON Schema
 * 2020-12, as OpenAPI 3.1 uses), resolving the document's own `#/components/...` references.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const DOCUMENT_ID = 'https://inkpress.invalid/openapi.json';

export interface ResponseValidator {
  /** Throws with the schema errors when `body` does not fit the documented response. */
  check(method: string, routePath: string, status: number, body: unknown): void;
  /** The (method, path, status) triples checked so far. */
  checked: Set<string>;
}

/** `/v1/websites/{website_uuid}/show` -> `~1v1~1websites~1{website_uuid}~1show` (JSON pointer). */
const pointer = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

export function responseValidator(document: Record<string, unknown>): ResponseValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const checked = new Set<string>();
  return {
    checked,
    check(method, routePath, status, body) {
      const paths = document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
      const operation = paths[routePath]?.[method.toLowerCase()];
      if (!operation) throw new Error(`${method} ${routePath} is not in the document`);
      if (!operation.responses[String(status)]) {
        throw new Error(`${method} ${routePath} answered ${status}, which the document does not list`);
      }
      const ref = `${DOCUMENT_ID}#/paths/${pointer(routePath)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      const validate = ajv.compile({ $ref: ref });
      if (!validate(body)) {
        throw new Error(
          `${method} ${routePath} ${status} does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`,
        );
      }
      checked.add(`${method} ${routePath} ${status}`);
    },
  };
}
