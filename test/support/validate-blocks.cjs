/**
 * Validates block markup with the block editor's own code: the newest `@wordpress/blocks` and
 * `@wordpress/block-library` (devDependencies), in a jsdom window. Reads post content on stdin and
 * prints, as JSON on stdout, every block (inner blocks too) with:
 * - `valid`: the parser accepted it (its markup matches the block's save, or a deprecation of it);
 * - `current`: its markup is what the block's current save produces from its attributes, so no
 *   deprecation was needed;
 * - `issues`: the validator's messages when either is false.
 *
 * A child process of its own (test/support/block-library-validation.ts runs it): Jest's module
 * runtime cannot load these packages' ES-module-only dependencies on Node 20, Node's own `require`
 * can. What the library logs about invalid blocks goes to stderr.
 */
const { format } = require('node:util');
const { JSDOM } = require('jsdom');

const dom = new JSDOM('<!DOCTYPE html><html><head></head><body></body></html>', {
  url: 'http://localhost/',
  pretendToBeVisual: true,
});
globalThis.window = dom.window;
for (const key of Object.getOwnPropertyNames(dom.window)) {
  if (!(key in globalThis)) {
    try {
      globalThis[key] = dom.window[key];
    } catch {
      // Read-only globals of Node stay as they are.
    }
  }
}
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'group', 'groupCollapsed', 'groupEnd']) {
  console[method] = (...args) => process.stderr.write(`${args.map(String).join(' ')}\n`);
}

const { getBlockType, parse, validateBlock } = require('@wordpress/blocks');
const { registerCoreBlocks } = require('@wordpress/block-library');

registerCoreBlocks();

function report(block) {
  const type = getBlockType(block.name);
  const [current, currentIssues] = type ? validateBlock(block, type) : [false, []];
  const issues = [...(block.validationIssues ?? []), ...(current ? [] : currentIssues)].map((issue) =>
    typeof issue === 'string' ? issue : format(...(issue.args ?? [])),
  );
  return {
    name: block.name,
    valid: block.isValid === true,
    current,
    issues,
    inner: block.innerBlocks.map(report),
  };
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  input += chunk;
});
process.stdin.on('end', () => {
  const blocks = parse(input);
  process.stdout.write(JSON.stringify({ blocks: blocks.map(report) }));
  process.exit(0);
});
