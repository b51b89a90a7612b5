/**
 * A function's bundle as the stack builds it (esbuild, `functionBuildOptions`), and the lazy
 * modules built beside it (`lazyModuleBuildOptions`), built once and shared by the test files
 * that read or run them (bundles, lazy-modules, bundled-functions, sam-local), in this run and the
 * next: esbuild takes ~0.9 s of CPU per function (36 functions) in its own process, and each of
 * those files built them again.
 *
 * Kept in the system's temp folder under a key made of the build options, esbuild's version and
 * the lock file; it is used only while every file esbuild read for it (its metafile's inputs,
 * packages included) has the content it had, otherwise built again. Written under a temporary
 * name then renamed, so parallel test workers never read half a file (both may build it).
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BuildOptions, build, version as esbuildVersion } from 'esbuild';
import type { FunctionDefinition } from '../../functions/routes';
import { functionBuildOptions, repositoryRoot } from '../../lib/constructs/inkpress-function';
import { lazyModuleBuildOptions } from '../../lib/constructs/lazy-modules';

export interface FunctionBundle {
  /** The bundle's text (its `index.js`). */
  source: string;
  /** The files esbuild put in it, relative to the repository (packages under node_modules). */
  files: string[];
}

interface CachedBundle extends FunctionBundle {
  /** The content hash of each file read, or `absent`. */
  hashes: Record<string, string>;
}

const CACHE_DIR = path.join(tmpdir(), 'inkpress-bundle-cache');

function hashOf(file: string): string {
  const absolute = path.resolve(repositoryRoot, file);
  if (!existsSync(absolute)) return 'absent';
  return createHash('sha256').update(readFileSync(absolute)).digest('hex');
}

/** The stack's build options for `definition`, with `external` added to its externals. */
function buildOptionsOf(definition: FunctionDefinition, external: readonly string[]) {
  const options = functionBuildOptions(definition);
  return {
    ...options,
    external: [...options.external, ...external],
    entryPoints: [path.join(repositoryRoot, definition.entry)],
  };
}

function cacheKey(options: BuildOptions): string {
  return createHash('sha256')
    .update(JSON.stringify({ esbuildVersion, options, lock: hashOf('package-lock.json') }))
    .digest('hex');
}

function readCache(file: string): FunctionBundle | undefined {
  try {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as CachedBundle;
    const current = Object.entries(cached.hashes).every(([input, hash]) => hashOf(input) === hash);
    return current ? { source: cached.source, files: cached.files } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The bundle of `definition` (with `external` also kept out of it), from the cache when none of
 * its inputs changed.
 */
export function functionBundle(
  definition: FunctionDefinition,
  external: readonly string[] = [],
): Promise<FunctionBundle> {
  return cachedBuild(buildOptionsOf(definition, external));
}

/**
 * Builds the lazy module `name` beside a bundle in `bundleDir` as the stack's afterBundling
 * commands do (`lazyModuleBuildOptions`), from the cache when none of its inputs changed.
 */
export async function buildLazyModule(name: string, bundleDir: string): Promise<void> {
  const {
    outfile,
    logLevel: _logLevel,
    ...options
  } = lazyModuleBuildOptions(name, repositoryRoot, bundleDir);
  if (!outfile) throw new Error(`no output file for the lazy module ${name}`);
  const { source } = await cachedBuild(options);
  mkdirSync(path.dirname(outfile), { recursive: true });
  writeFileSync(outfile, source);
}

/** esbuild's single output for `options` (no output file: it is not part of the key). */
async function cachedBuild(options: BuildOptions): Promise<FunctionBundle> {
  const cacheFile = path.join(CACHE_DIR, `${cacheKey(options)}.json`);
  const cached = readCache(cacheFile);
  if (cached) return cached;
  const result = await build({
    ...options,
    write: false,
    metafile: true,
    outfile: 'index.js',
    logLevel: 'silent',
  });
  if (result.outputFiles.length !== 1)
    throw new Error(`expected one output, got ${result.outputFiles.length}`);
  const bundle: FunctionBundle = {
    source: result.outputFiles.map((file) => file.text).join('\n'),
    files: Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs)),
  };
  const hashes = Object.fromEntries(
    Object.keys(result.metafile.inputs).map((input) => [input, hashOf(input)]),
  );
  mkdirSync(CACHE_DIR, { recursive: true });
  const temporary = `${cacheFile}.${process.pid}.${randomUUID()}`;
  writeFileSync(temporary, JSON.stringify({ ...bundle, hashes } satisfies CachedBundle));
  renameSync(temporary, cacheFile);
  return bundle;
}
