/**
 * The lazy modules as the stack builds them: the `afterBundling` commands of a function write
 * each lazy module its bundle requires beside it, and nothing else; each one loads from there with
 * the exports its callers use; and a bundle requires no package that is neither built into Node
 * nor a lazy module (anything else would be missing in Lambda).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { functionNamed } from '../../functions/routes';
import { besideTheBundle, nativeModulesOf, repositoryRoot } from '../../lib/constructs/inkpress-function';
import {
  LAZY_MODULES,
  lazyModuleCommands,
  lazyModuleFile,
  lazyModulesRequiredBy,
} from '../../lib/constructs/lazy-modules';
import { functionBundle } from '../support/bundle-cache';
import { stackEnvironment } from '../support/bundles';

let outDir: string;

beforeAll(() => {
  outDir = mkdtempSync(path.join(tmpdir(), 'inkpress-lazy-'));
});

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

/**
 * Bundles a function as the stack does and runs the stack's `afterBundling` lazy-module commands,
 * once per function for the file (its main bundle from bundle-cache.ts): the tests only read what a
 * build wrote, and each build (esbuild,
 * then a process per lazy module) takes seconds.
 */
const built = new Map<string, Promise<string>>();
function bundleWithHooks(functionName: string): Promise<string> {
  const existing = built.get(functionName) ?? buildWithHooks(functionName);
  built.set(functionName, existing);
  return existing;
}

async function buildWithHooks(functionName: string): Promise<string> {
  const dir = path.join(outDir, functionName);
  const outfile = path.join(dir, 'index.js');
  mkdirSync(dir, { recursive: true });
  writeFileSync(outfile, (await functionBundle(functionNamed(functionName))).source);
  for (const command of lazyModuleCommands(repositoryRoot, dir)) execFileSync('sh', ['-c', command]);
  return dir;
}

/** The packages a bundle requires at run time (`require("name")`, subpaths by their package). */
function requiredPackages(source: string): Set<string> {
  const names = [...source.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1] ?? '');
  return new Set(
    names.map((name) =>
      (name.startsWith('@') ? name.split('/').slice(0, 2) : name.split('/').slice(0, 1)).join('/'),
    ),
  );
}

const builtIn = (name: string) => name.startsWith('node:') || builtinModules.includes(name);

describe('lazy modules', () => {
  it('CreateArticle gets the parser, the multipart parser and the JSON scanner beside its bundle, each with the exports its callers use', async () => {
    const dir = await bundleWithHooks('CreateArticle');
    expect(lazyModulesRequiredBy(readFileSync(path.join(dir, 'index.js'), 'utf8')).sort()).toEqual(
      ['busboy', 'htmlparser2', 'jsonc-parser'].sort(),
    );
    const load = (name: string) => require(path.join(dir, lazyModuleFile(name)));
    expect(typeof load('htmlparser2').Parser).toBe('function');
    expect(typeof load('busboy')).toBe('function');
    expect(typeof load('jsonc-parser').visit).toBe('function');
  });

  it('a function whose bundle requires no HTML parser gets none beside it', async () => {
    const dir = await bundleWithHooks('ShowWebhook');
    expect(existsSync(path.join(dir, lazyModuleFile('htmlparser2')))).toBe(false);
    expect(existsSync(path.join(dir, lazyModuleFile('busboy')))).toBe(true);
  });

  it.each(['UpdateWebsite', 'RefreshCategories', 'GenerationWorker'])(
    '%s, which seldom sends a message (a health event; the worker: a retry backoff or an event), gets the SQS client beside its bundle',
    async (functionName) => {
      const dir = await bundleWithHooks(functionName);
      expect(lazyModulesRequiredBy(readFileSync(path.join(dir, 'index.js'), 'utf8'))).toContain(
        '@aws-sdk/client-sqs',
      );
      const sqs = require(path.join(dir, lazyModuleFile('@aws-sdk/client-sqs')));
      expect(typeof sqs.SQSClient).toBe('function');
      expect(typeof sqs.SendMessageBatchCommand).toBe('function');
      expect(typeof sqs.ChangeMessageVisibilityCommand).toBe('function');
    },
  );

  it('GenerationWorker gets markdown-it beside its bundle, and its init loads neither it nor the sanitizer and starts no ICU segmenter', async () => {
    const dir = await bundleWithHooks('GenerationWorker');
    expect(lazyModulesRequiredBy(readFileSync(path.join(dir, 'index.js'), 'utf8'))).toContain('markdown-it');
    const markdownIt = require(path.join(dir, lazyModuleFile('markdown-it')));
    expect(new markdownIt.default().render('Some **bold** text')).toBe(
      '<p>Some <strong>bold</strong> text</p>\n',
    );
    // A cold start as in Lambda (the stack's environment, so its init composes what it does
    // there): the files `require` of the bundle loads (sanitize-html would load the HTML parser)
    // and the Intl segmenters it makes (the first one starts ICU).
    const worker = functionNamed('GenerationWorker');
    const coldStart = `
      let segmenters = 0;
      Intl.Segmenter = new Proxy(Intl.Segmenter, { construct: (target, args) => (segmenters++, new target(...args)) });
      require(${JSON.stringify(path.join(dir, 'index.js'))});
      console.log(JSON.stringify({ files: Object.keys(require.cache), segmenters }));`;
    const environment = {
      ...stackEnvironment(worker),
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      PATH: process.env.PATH ?? '',
    };
    const atInit = JSON.parse(
      execFileSync(process.execPath, ['-e', coldStart], { env: environment, encoding: 'utf8' }),
    );
    expect(atInit).toEqual({ files: [path.join(dir, 'index.js')], segmenters: 0 });
  });

  it("CreateArticle's init builds no zod schema (its body schema is built while the first request's rate-limit call is out)", async () => {
    const dir = await bundleWithHooks('CreateArticle');
    // zod calls this hook with every schema object it constructs.
    const coldStart = `
      let schemas = 0;
      globalThis.__zod_globalConfig = { postProcessor: () => schemas++ };
      require(${JSON.stringify(path.join(dir, 'index.js'))});
      console.log(schemas);`;
    const environment = {
      ...stackEnvironment(functionNamed('CreateArticle')),
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      PATH: process.env.PATH ?? '',
    };
    const schemasAtInit = Number(
      execFileSync(process.execPath, ['-e', coldStart], { env: environment, encoding: 'utf8' }),
    );
    expect(schemasAtInit).toBe(0);
  });

  it.each(['CreateArticle', 'RetryArticle', 'Sweeper', 'WebhookDispatcher'])(
    '%s, which sends generation messages or delivers webhooks, bundles the SQS client',
    async (functionName) => {
      const dir = await bundleWithHooks(functionName);
      expect(lazyModulesRequiredBy(readFileSync(path.join(dir, 'index.js'), 'utf8'))).not.toContain(
        '@aws-sdk/client-sqs',
      );
      expect(existsSync(path.join(dir, lazyModuleFile('@aws-sdk/client-sqs')))).toBe(false);
    },
  );

  it.each(['CreateWebsite', 'UpdateWebsite', 'GenerationWorker', 'Authorizer', 'Sweeper'])(
    '%s requires only Node built-ins and lazy modules',
    async (functionName) => {
      const dir = await bundleWithHooks(functionName);
      const source = readFileSync(path.join(dir, 'index.js'), 'utf8');
      const native = nativeModulesOf(functionNamed(functionName).access);
      const others = [...requiredPackages(source)].filter(
        (name) =>
          !builtIn(name) &&
          !(name in LAZY_MODULES) &&
          !native.includes(name) &&
          // The S3 client's error message for SigV4a names this require; no code calls it.
          !(name === '@aws-sdk/signature-v4-crt' && source.includes('register the package by calling')),
      );
      expect(others).toEqual([]);
      for (const name of lazyModulesRequiredBy(source)) {
        expect(existsSync(path.join(dir, lazyModuleFile(name)))).toBe(true);
      }
    },
  );
});

describe('native modules', () => {
  const pinned = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')).dependencies;

  const installCommand = (functionName: string, outputDir: string) =>
    besideTheBundle(functionNamed(functionName))
      .afterBundling('/in', outputDir)
      .find((command) => command.includes('npm install'));

  it("installs sharp's Lambda build (linux, arm64, glibc) at the pinned version when the bundle requires it", async () => {
    const command = installCommand('GenerationWorker', '/out');
    expect(command).toContain(
      `if grep -qF 'require("sharp")' "/out/index.js"; then npm install --prefix "/out"`,
    );
    expect(command).toContain(`--os=linux --cpu=arm64 --libc=glibc sharp@${pinned.sharp}`);
    expect(installCommand('CreateArticle', '/out')).toBeUndefined();

    // The sweeper writes images but never loads sharp: the same command installs nothing there.
    const sweeper = await bundleWithHooks('Sweeper');
    execFileSync('sh', ['-c', installCommand('Sweeper', sweeper) ?? 'false']);
    expect(existsSync(path.join(sweeper, 'node_modules', 'sharp'))).toBe(false);
  });
});
