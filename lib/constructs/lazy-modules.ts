/**
 * Libraries that functions load on first use (a `require` inside the code that needs them), kept
 * out of the functions' bundles: each is bundled on its own, minified, as
 * `node_modules/<name>/index.js` beside the bundle of a function that requires it, where Node's
 * `require` finds it. A cold start then compiles only what every request runs, and the request
 * that needs one of them loads it (docs/decisions.md, "Configuration and composition").
 *
 * - `htmlparser2`: text holding `<` or `&` (`core/text.ts`); the worker's sanitizer.
 *   Its `Parser` module alone (with `entities`, its decoder): all that sanitize-html and
 *   `plainText` use, without the index's DOM handler, DomUtils and entity encoder.
 * - `markdown-it` (its ES module build, with its dependencies): the worker's article tools, set up
 *   while the model writes the first outline (`core/articles/write-article.ts`), not at init.
 * - `busboy`: a multipart body (`api/http/form-body.ts`).
 * - `jsonc-parser`: a JSON body that may name a field twice (`api/http/repeated-json-names.ts`).
 * - `csv-parse/sync`: a batch's CSV upload (`api/http/batch-body.ts`).
 * - `@aws-sdk/client-sqs`, for functions that seldom send a message (`composition/sqs-on-demand.ts`):
 *   API routes whose one use of SQS is recording a webhook event (a website's health changing),
 *   and the worker, which Lambda hands its messages and which uses SQS only to put a delivery off
 *   (a failed attempt's backoff, a busy lease, storage down) or for an event some account
 *   subscribed to. Functions that send generation messages (create, retry, the sweeper) or
 *   deliver webhooks bundle it.
 */
import * as path from 'node:path';
import type { BuildOptions } from 'esbuild';
import type { FunctionAccess } from '../../functions/routes';

const SQS_CLIENT = '@aws-sdk/client-sqs';

/** Each lazy module by the name code requires it with, and the file its own bundle starts from. */
export const LAZY_MODULES: Readonly<Record<string, string>> = {
  htmlparser2: 'node_modules/htmlparser2/dist/Parser.js',
  'markdown-it': 'node_modules/markdown-it/dist/markdown-it.mjs',
  busboy: 'node_modules/busboy/lib/index.js',
  'jsonc-parser': 'node_modules/jsonc-parser/lib/esm/main.js',
  'csv-parse/sync': 'node_modules/csv-parse/dist/esm/sync.js',
  [SQS_CLIENT]: 'node_modules/@aws-sdk/client-sqs/dist-es/index.js',
};

/** The lazy modules of a function: what its route-table access makes rare (see above). */
export function lazyModulesOf(access: FunctionAccess): string[] {
  const seldomSends = access.sendsToWebhookQueue && !access.sendsToQueue && !access.consumesWebhookQueue;
  return Object.keys(LAZY_MODULES).filter((name) => name !== SQS_CLIENT || seldomSends);
}

/** The Lambda runtime's Node.js, and the builds of packages preferred (ES modules: esbuild can drop unused code). */
export const BUNDLE_TARGET = 'node22';
export const BUNDLE_MAIN_FIELDS = ['module', 'main'];

/**
 * Modules that throw in place of code the functions never run: `postcss`, which sanitize-html
 * loads for `style` attributes we never keep, and Powertools' JMESPath engine, for expressions
 * our idempotent operations do not set. The SDK clients read credentials from the environment
 * only, as Lambda sets them (`environment-credentials.ts`). Tests and the local runtime run
 * unbundled, with the SDK's chain.
 */
export const ESBUILD_ALIASES: Record<string, string> = {
  postcss: './functions/shared/bundling/postcss-unused.ts',
  '@aws-lambda-powertools/jmespath': './functions/shared/bundling/jmespath-unused.ts',
  '@aws-lambda-powertools/jmespath/functions': './functions/shared/bundling/jmespath-unused.ts',
  '@aws-sdk/credential-provider-node': './functions/shared/bundling/environment-credentials.ts',
  // linkedom tries the native `canvas` package and falls back to its own shim: the shim, always.
  canvas: './node_modules/linkedom/commonjs/canvas-shim.cjs',
};

/** How every bundle is built, a function's or a lazy module's (each adds its entry and externals). */
export const BUNDLE_OPTIONS = {
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'cjs',
  target: BUNDLE_TARGET,
  mainFields: BUNDLE_MAIN_FIELDS,
  alias: ESBUILD_ALIASES,
} as const satisfies BuildOptions;

/** Where a lazy module goes, relative to the folder of the function's bundle. */
export function lazyModuleFile(name: string): string {
  return path.join('node_modules', name, 'index.js');
}

/**
 * The lazy modules (of `candidates`: the function's own) a minified bundle requires (esbuild
 * writes an external as `require("name")`; a bundle built with the whole SDK external requires
 * the SQS client of the runtime, not a lazy one).
 */
export function lazyModulesRequiredBy(
  bundleSource: string,
  candidates: readonly string[] = Object.keys(LAZY_MODULES),
): string[] {
  return candidates.filter((name) => bundleSource.includes(requireCall(name)));
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
    ...BUNDLE_OPTIONS,
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
export function lazyModuleCommands(
  repositoryRoot: string,
  bundleDir: string,
  names: readonly string[] = Object.keys(LAZY_MODULES),
): string[] {
  const esbuild = path.join(repositoryRoot, 'node_modules', '.bin', 'esbuild');
  const bundle = path.join(bundleDir, 'index.js');
  // The same options as lazyModuleBuildOptions, as esbuild's command-line flags.
  const flags = [
    '--bundle',
    '--minify',
    `--platform=${BUNDLE_OPTIONS.platform}`,
    `--format=${BUNDLE_OPTIONS.format}`,
    `--target=${BUNDLE_OPTIONS.target}`,
    `--main-fields=${BUNDLE_OPTIONS.mainFields.join(',')}`,
    ...Object.entries(BUNDLE_OPTIONS.alias).map(
      ([name, replacement]) => `"--alias:${name}=${path.join(repositoryRoot, replacement)}"`,
    ),
    '--log-level=warning',
  ].join(' ');
  return names.map((name) => {
    const entry = LAZY_MODULES[name];
    if (entry === undefined) throw new Error(`${name} is not a lazy module`);
    const build = `"${esbuild}" "${path.join(repositoryRoot, entry)}" ${flags} --outfile="${path.join(bundleDir, lazyModuleFile(name))}"`;
    return `if grep -qF '${requireCall(name)}' "${bundle}"; then ${build}; fi`;
  });
}
