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
 *
 * A missing bundle is built with its group: the functions whose options are the same but for
 * the entry point (4 groups of the 36), in one esbuild build with one entry point each, which
 * parses the modules they share once; every bundle of the group goes in the cache under its own
 * key, with the files its own entry point reaches. Each output is the bundle its own build gives,
 * byte for byte (test/infra/bundle-cache.test.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BuildOptions, build, version as esbuildVersion, type Metafile } from 'esbuild';
import { allFunctions, type FunctionDefinition } from '../../functions/routes';
import { functionBuildOptions, repositoryRoot } from '../../lib/constructs/inkpress-function';
import { lazyModuleBuildOptions } from '../../lib/constructs/lazy-modules';
import { isAlive } from '../../local/data-lock';

export interface FunctionBundle {
  /** The bundle's text (its `index.js`). */
  source: string;
  /** The files esbuild put in it, relative to the repository (packages under node_modules). */
  files: string[];
}

interface CachedBundle extends FunctionBundle {
  /** The content hash of each file read, or `absent`. */
  hashes: Record<string, string>;
  /** The functions of the build that made it (absent: its own build, or a lazy module). */
  builtWith?: string[];
}

/** A bundle with the files esbuild read for it (the keys of its hashes in the cache). */
export interface BuiltBundle extends FunctionBundle {
  inputs: string[];
}

const CACHE_DIR = path.join(tmpdir(), 'inkpress-bundle-cache');

function hashOf(file: string): string {
  const absolute = path.resolve(repositoryRoot, file);
  if (!existsSync(absolute)) return 'absent';
  return createHash('sha256').update(readFileSync(absolute)).digest('hex');
}

/** The stack's build options for `definition`, with `external` added to its externals, but its entry point. */
function sharedOptionsOf(definition: FunctionDefinition, external: readonly string[]) {
  const options = functionBuildOptions(definition);
  return { ...options, external: [...options.external, ...external] };
}

/** The stack's build options for `definition`, with `external` added to its externals. */
function buildOptionsOf(definition: FunctionDefinition, external: readonly string[]) {
  return {
    ...sharedOptionsOf(definition, external),
    entryPoints: [path.join(repositoryRoot, definition.entry)],
  };
}

/** The functions built with `definition` (itself included): the same options but the entry point. */
export function groupOf(
  definition: FunctionDefinition,
  external: readonly string[] = [],
): FunctionDefinition[] {
  const shared = JSON.stringify(sharedOptionsOf(definition, external));
  return allFunctions.filter((other) => JSON.stringify(sharedOptionsOf(other, external)) === shared);
}

function cacheKey(options: BuildOptions): string {
  return createHash('sha256')
    .update(JSON.stringify({ esbuildVersion, options, lock: hashOf('package-lock.json') }))
    .digest('hex');
}

function cacheFileOf(options: BuildOptions): string {
  return path.join(CACHE_DIR, `${cacheKey(options)}.json`);
}

function readCache(file: string): CachedBundle | undefined {
  try {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as CachedBundle;
    const current = Object.entries(cached.hashes).every(([input, hash]) => hashOf(input) === hash);
    return current ? cached : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, bundle: CachedBundle): void {
  mkdirSync(CACHE_DIR, { recursive: true });
  const temporary = `${file}.${process.pid}.${randomUUID()}`;
  writeFileSync(temporary, JSON.stringify(bundle));
  renameSync(temporary, file);
}

/**
 * The bundle of `definition` (with `external` also kept out of it), from the cache when none of
 * its inputs changed, else built with its group.
 */
export async function functionBundle(
  definition: FunctionDefinition,
  external: readonly string[] = [],
): Promise<FunctionBundle> {
  const cached = readCache(cacheFileOf(buildOptionsOf(definition, external)));
  const { source, files } = cached ?? (await builtWithGroup(definition, external));
  return { source, files };
}

/**
 * The bundle of `definition` as its group's build made it: from the cache if a build of its
 * whole group put it there, else built with its group now (and cached).
 */
export async function groupBuiltBundle(
  definition: FunctionDefinition,
  external: readonly string[] = [],
): Promise<BuiltBundle & { builtWith: string[] }> {
  const group = groupOf(definition, external);
  const names = group.map((member) => member.name).join();
  const cached =
    readCache(cacheFileOf(buildOptionsOf(definition, external))) ??
    (await builtWithGroup(definition, external));
  // A bundle cached by its own build (before groups were built together) is built again with them.
  const bundle =
    cached.builtWith?.join() === names ? cached : memberOf(await buildGroup(group, external), definition);
  return {
    source: bundle.source,
    files: bundle.files,
    inputs: Object.keys(bundle.hashes),
    builtWith: bundle.builtWith ?? [definition.name],
  };
}

/** Group builds under way in this process, by their options: a function of one waits for it. */
const groupBuilds = new Map<string, Promise<Map<string, CachedBundle> | undefined>>();

/** The bundle of `definition` from a build of its group, by this worker or another one. */
async function builtWithGroup(
  definition: FunctionDefinition,
  external: readonly string[],
): Promise<CachedBundle> {
  const shared = sharedOptionsOf(definition, external);
  const key = JSON.stringify(shared);
  const cacheFile = cacheFileOf(buildOptionsOf(definition, external));
  let group = groupBuilds.get(key);
  if (!group) {
    group = onceAcrossWorkers(
      `group-${cacheKey(shared)}`,
      // Nothing to build when another worker's build of the group put it in the cache meanwhile.
      () => (readCache(cacheFile) ? undefined : false),
      () => buildGroup(groupOf(definition, external), external),
    ).finally(() => groupBuilds.delete(key));
    groupBuilds.set(key, group);
  }
  const bundle = (await group)?.get(definition.name) ?? readCache(cacheFile);
  if (bundle) return bundle;
  // Built by another worker but changed since: built again, this time here.
  return memberOf(await buildGroup(groupOf(definition, external), external), definition);
}

function memberOf(bundles: Map<string, CachedBundle>, definition: FunctionDefinition): CachedBundle {
  const bundle = bundles.get(definition.name);
  if (!bundle) throw new Error(`${definition.name} is not in the build of its group`);
  return bundle;
}

/** How often a worker waiting for another one's build looks whether it is done, and how long it waits at most. */
const LOCK_POLL_MS = 100;
const LOCK_STALE_MS = 180_000;

/**
 * Runs `make` holding the lock `name` in the cache folder, unless `found()` (called once the lock
 * is taken, so after any build of another worker that held it) finds what it would make: parallel
 * test workers that miss the same group build it once, not each its own (a group of 32 functions
 * costs seconds of CPU). A lock whose process is gone, or older than a build can take, is taken
 * over; should two workers still build at once, each writes under a temporary name then renames.
 */
async function onceAcrossWorkers<T>(
  name: string,
  found: () => T | false,
  make: () => Promise<T>,
): Promise<T> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const lock = path.join(CACHE_DIR, `${name}.lock`);
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (lockIsStale(lock)) rmSync(lock, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
      continue;
    }
    try {
      const existing = found();
      return existing === false ? await make() : existing;
    } finally {
      rmSync(lock, { force: true });
    }
  }
}

function lockIsStale(lock: string): boolean {
  try {
    const owner = Number(readFileSync(lock, 'utf8'));
    const age = Date.now() - statSync(lock).mtimeMs;
    // An empty lock is one being written (its owner's pid comes right after it is made).
    return (owner > 0 && !isAlive(owner)) || age > LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/**
 * Builds the functions of a group (the same options but the entry point) in one esbuild build and
 * caches each bundle under its own key (that of its own build), with the hashes of the files its
 * entry point reaches.
 */
async function buildGroup(
  definitions: readonly FunctionDefinition[],
  external: readonly string[],
): Promise<Map<string, CachedBundle>> {
  const [first] = definitions;
  if (!first) throw new Error('no function to build');
  if (definitions.length === 1) {
    // A group of one: the build of the function alone, as it always was.
    const options = buildOptionsOf(first, external);
    const { bundle, hashes } = await buildAlone(options);
    const cached: CachedBundle = { ...bundle, hashes, builtWith: [first.name] };
    writeCache(cacheFileOf(options), cached);
    return new Map([[first.name, cached]]);
  }
  const result = await build({
    ...sharedOptionsOf(first, external),
    entryPoints: definitions.map((definition) => path.join(repositoryRoot, definition.entry)),
    write: false,
    metafile: true,
    outdir: 'bundles',
    logLevel: 'silent',
  });
  const outputs = Object.entries(result.metafile.outputs);
  if (outputs.length !== definitions.length)
    throw new Error(`expected one output per function, got ${outputs.length} for ${definitions.length}`);
  const hashes = new Map<string, string>();
  const hashOnce = (input: string) => hashes.get(input) ?? hashes.set(input, hashOf(input)).get(input);
  const bundles = new Map<string, CachedBundle>();
  for (const definition of definitions) {
    const entry = path.relative(repositoryRoot, path.join(repositoryRoot, definition.entry));
    const [outputPath, output] = outputs.find(([, candidate]) => candidate.entryPoint === entry) ?? [];
    const file = result.outputFiles.find(
      (candidate) => candidate.path === path.resolve(repositoryRoot, outputPath ?? ''),
    );
    if (!output || !file) throw new Error(`no output for ${definition.entry}`);
    const bundle: CachedBundle = {
      source: file.text,
      files: Object.keys(output.inputs),
      hashes: Object.fromEntries(
        inputsReachedFrom(entry, result.metafile.inputs).map((input) => [input, hashOnce(input) ?? 'absent']),
      ),
      builtWith: definitions.map((member) => member.name),
    };
    writeCache(cacheFileOf(buildOptionsOf(definition, external)), bundle);
    bundles.set(definition.name, bundle);
  }
  return bundles;
}

/** The files esbuild read for `entry`: those its imports reach (what a build of it alone reads). */
function inputsReachedFrom(entry: string, inputs: Metafile['inputs']): string[] {
  const reached = new Set([entry]);
  for (const file of reached) {
    for (const imported of inputs[file]?.imports ?? []) {
      if (!imported.external && imported.path in inputs) reached.add(imported.path);
    }
  }
  return [...reached];
}

/** The bundle of `definition` built alone, as the stack builds it (not cached: to compare with its group's). */
export async function singleBuiltBundle(
  definition: FunctionDefinition,
  external: readonly string[] = [],
): Promise<BuiltBundle> {
  const { bundle, hashes } = await buildAlone(buildOptionsOf(definition, external));
  return { ...bundle, inputs: Object.keys(hashes) };
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
  const cacheFile = cacheFileOf(options);
  const source =
    readCache(cacheFile)?.source ??
    (await onceAcrossWorkers(
      `lazy-${cacheKey(options)}`,
      () => readCache(cacheFile)?.source ?? false,
      async () => (await buildAndCache(options, cacheFile)).source,
    ));
  mkdirSync(path.dirname(outfile), { recursive: true });
  writeFileSync(outfile, source);
}

async function buildAndCache(options: BuildOptions, cacheFile: string): Promise<FunctionBundle> {
  const { bundle, hashes } = await buildAlone(options);
  writeCache(cacheFile, { ...bundle, hashes });
  return bundle;
}

/** esbuild's single output for `options` (no output file: it is not part of the key). */
async function buildAlone(
  options: BuildOptions,
): Promise<{ bundle: FunctionBundle; hashes: Record<string, string> }> {
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
  return { bundle, hashes };
}
