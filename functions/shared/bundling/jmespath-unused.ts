/**
 * Stands in for `@aws-lambda-powertools/jmespath` in the bundles and in Jest (`ESBUILD_ALIASES`,
 * `test/support/jest-common.js`). Powertools' idempotency imports it for `eventKeyJmesPath` and
 * `payloadValidationJmesPath`, which our idempotent operations do not set (the payload they pass
 * is the key itself, and they compare requests themselves: `api/http/idempotent-operation.ts`):
 * 23 KB that every create route compiled at each cold start and never ran.
 */
export class PowertoolsFunctions {}

export function search(): never {
  throw new Error('JMESPath is not bundled: no idempotent operation of ours sets an expression.');
}
