/**
 * Stands in for `postcss` in the bundles and in Jest (`ESBUILD_ALIASES`, `test/support/jest-common.js`).
 * sanitize-html `require`s postcss at load only to filter `style` attributes, and our allow-list
 * keeps no `style` attribute (`parseStyleAttributes: false`, `core/html-safety.ts`): 89 KB of
 * postcss and source-map-js that the worker would compile at every cold start and never run.
 */
export function parse(): never {
  throw new Error('postcss is not bundled: no allow-list of ours keeps a style attribute.');
}
