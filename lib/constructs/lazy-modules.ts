/**
 * Libraries that functions load on first use (a `require` inside the code that needs them), kept
 * out of the functions' bundles: each is bundled on its own, minified, as
 * `node_modules/<name>/index.js` beside the bundle of a function that requires it, where Node's
 * `require` finds it. A cold start then compiles only what every request runs, and the request
 * that needs one of them loads it (docs/decisions.md, "Configuration and composition").
 *
 * - `htmlparser2`: text holding `<` or `&` (`core/text.ts`); the worker's sanitizer (at its init).
 *   Its `Parser` module alone (with `entities`, its decoder): all that sanitize-html and
 *   `plainText` use, without the index's DOM handler, DomUtils and entity encoder.
 * - `busboy`: a multipart body (`api/http/form-body.ts`).
 * - `jsonc-parser`: a JSON body that may name a field twice (`api/http/repeated-json-names.ts`).
 */
import * as path from 'node:path';
import type { BuildOptions } from 'esbuild';

/** Each lazy module by the name code requires it with, and the file its own bundle starts from. */
export const LAZY_MODULES: Readonly<Record<string, string>> = {
  htmlparser2: 'node_modules/htmlparser2/dist/Parser.js',
  busboy: 'node_modules/busboy/lib/index.js',
  'jsonc-parser': 'node_modules/jsonc-parser/lib/esm/main.js',
};

/** The Lambda runtime's Node.js, and the builds of packages preferred (ES modules: esbuild can drop unused code). */
export const BUNDLE_TARGET = 'node22';
export const BUNDLE_MAIN_FIELDS = ['module', 'main'];

/** How each lazy module is bundled: as the functions are. */
const LAZY_MODULE_OPTIONS = {
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'cjs',
  target: BUNDLE_TARGET,
  mainFields: BUNDLE_MAIN_FIELDS,
} as const satisfies BuildOptions;

/** Where a lazy module goes, relative to the folder of the function's bundle. */
export function lazyModuleFile(name: string): string {
  return path.join('node_modules', name, 'index.js');
}

/** The lazy modules a minified bundle requires (esbuild writes an external as `require("name")`). */
export function lazyModulesRequiredBy(bundleSource: string): string[] {
  return Object.keys(LAZY_MODULES).filter((name) => bundleSource.includes(requireCall(name)));
}

/** How esbuild writes the `require` of an external module in a minified bundle. */
function requireCall(name: string): string {
  return `require("${name}")`;
}

/** esbuild options that build one lazy module beside a bundle (for the bundle tests and bench:cold). */
export function lazyModuleBuildOptions(
  name: string,
  repositoryRoot: string,
  bundleDir: string,
): BuildOptions {
  const entry = LAZY_MODULES[name];
  if (entry === undefined) throw new Error(`${name} is not a lazy module`);
  return {
    ...LAZY_MODULE_OPTIONS,
    absWorkingDir: repositoryRoot,
    entryPoints: [path.join(repositoryRoot, entry)],
    outfile: path.join(bundleDir, lazyModuleFile(name)),
    logLevel: 'warning',
  };
}

/**
 * Shell commands (a CDK `afterBundling` hook) that build, beside a function's bundle, each lazy
 * module the bundle requires, with the esbuild of the repository and the same options.
 */
export function lazyModuleCommands(repositoryRoot: string, bundleDir: string): string[] {
  const esbuild = path.join(repositoryRoot, 'node_modules', '.bin', 'esbuild');
  const bundle = path.join(bundleDir, 'index.js');
  // The same options as lazyModuleBuildOptions, as esbuild's command-line flags.
  const flags = [
    '--bundle',
    '--minify',
    `--platform=${LAZY_MODULE_OPTIONS.platform}`,
    `--format=${LAZY_MODULE_OPTIONS.format}`,
    `--target=${LAZY_MODULE_OPTIONS.target}`,
    `--main-fields=${LAZY_MODULE_OPTIONS.mainFields.join(',')}`,
    '--log-level=warning',
  ].join(' ');
  return Object.entries(LAZY_MODULES).map(([name, entry]) => {
    const build = `"${esbuild}" "${path.join(repositoryRoot, entry)}" ${flags} --outfile="${path.join(bundleDir, lazyModuleFile(name))}"`;
    return `if grep -qF '${requireCall(name)}' "${bundle}"; then ${build}; fi`;
  });
}
