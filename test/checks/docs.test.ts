/**
 * The documentation a reader follows: every relative link of every Markdown file in the
 * repository reaches a file of the repository (and its heading, for a `#anchor`), nothing links
 * outside the repository, every route of `functions/routes.ts` has a `curl` example with each of
 * its methods in the API guide or the contract, and the guide's endpoint table lists exactly the
 * routes there are. The README stays the front door (about 300 lines), the detail in docs/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type HttpMethod, routes } from '../../functions/routes';

const root = path.join(__dirname, '..', '..');
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', 'cdk.out', '.inkpress', 'coverage']);
/** Where a route's curl example may be (the guide's endpoint table links to each). */
const CURL_DOCUMENTS = ['docs/api-guide.md', 'docs/api-contract.md'];
const README_MAX_LINES = 360;

function markdownFiles(directory = root): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED_DIRECTORIES.has(entry.name)) return [];
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

const relative = (file: string): string => path.relative(root, file);

interface Fence {
  marker: string;
  lines: string[];
}

/**
 * Splits Markdown into prose lines and fenced code blocks as CommonMark does: a fence closes only
 * on a bare fence of its own character at least as long (a "```sh" inside a block is content, so a
 * block left open swallows the headings after it; `unclosed` says so).
 */
function parseMarkdown(text: string): { prose: string[]; blocks: string[]; unclosed: boolean } {
  const prose: string[] = [];
  const blocks: string[] = [];
  let open: Fence | null = null;
  for (const line of text.split('\n')) {
    if (open === null) {
      const opening = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (opening === undefined) prose.push(line);
      else open = { marker: opening, lines: [] };
      continue;
    }
    const closing = /^\s*(`{3,}|~{3,})\s*$/.exec(line)?.[1];
    if (closing !== undefined && closing[0] === open.marker[0] && closing.length >= open.marker.length) {
      blocks.push(open.lines.join('\n'));
      open = null;
    } else open.lines.push(line);
  }
  return { prose, blocks, unclosed: open !== null };
}

/** The text outside fenced code blocks, line by line (a `# comment` in bash is no heading). */
const proseLines = (text: string): string[] => parseMarkdown(text).prose;

/** The fenced code blocks' text. */
const codeBlocks = (text: string): string[] => parseMarkdown(text).blocks;

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slugOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = slugOf(heading);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

interface Link {
  file: string;
  target: string;
}

function linksOf(file: string): Link[] {
  const prose = proseLines(readFileSync(file, 'utf8'))
    .join('\n')
    .replace(/`[^`\n]*`/g, (code) => (code.startsWith('`[') ? code : ''));
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
  const references = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1] ?? '');
  return [...inline, ...references].map((target) => ({ file, target }));
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with a link, or null. */
function problemOf({ file, target }: Link): string | null {
  if (isExternal(target)) return null;
  const [pathPart = '', anchor] = target.split('#', 2);
  if (pathPart.startsWith('/')) return 'an absolute path (link within the repository, relatively)';
  const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURI(pathPart));
  const inside = path.relative(root, resolved);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return 'leaves the repository';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === undefined || anchor === '') return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return null;
  return anchorsOf(resolved).has(anchor.toLowerCase())
    ? null
    : `no heading #${anchor} in ${relative(resolved)}`;
}

interface CurlCall {
  method: HttpMethod;
  path: string;
}

/** Each curl command of the code blocks: its method and the path of each URL it names. */
function curlCallsOf(text: string): CurlCall[] {
  return codeBlocks(text).flatMap((block) =>
    block
      .replace(/\\\n/g, ' ')
      .split('\n')
      .filter((line) => /^\s*curl\s/.test(line))
      .flatMap((command) => {
        const explicit = /(?:^|\s)(?:-X|--request)\s*['"]?([A-Z]+)/.exec(command)?.[1];
        const sendsBody = /\s(?:-F|--form|-d|--data(?:-\w+)?)[\s=]/.test(command);
        const method = (explicit ?? (sendsBody ? 'POST' : 'GET')) as HttpMethod;
        return command
          .split(/\s+/)
          .map((token) => token.replace(/^['"]+|['"]+$/g, ''))
          .map((token) => /^(?:\$\{?\w+\}?|https?:\/\/[^/\s]+)(\/[^\s?"'#]*)/.exec(token)?.[1])
          .filter((urlPath): urlPath is string => urlPath !== undefined)
          .map((urlPath) => ({ method, path: urlPath }));
      }),
  );
}

function pathPattern(routePath: string): RegExp {
  const escaped = routePath
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${escaped}$`);
}

describe('the documentation', () => {
  const files = markdownFiles();

  it('finds the Markdown files it checks', () => {
    expect(files.map(relative)).toEqual(
      expect.arrayContaining(['README.md', 'docs/api-guide.md', 'docs/operations.md', 'local/README.md']),
    );
  });

  it('links only to files and headings that exist, inside the repository', () => {
    const broken = files
      .flatMap(linksOf)
      .map((link) => ({ link, problem: problemOf(link) }))
      .filter(({ problem }) => problem !== null)
      .map(({ link, problem }) => `${relative(link.file)}: (${link.target}) ${problem}`);
    expect(broken).toEqual([]);
  });

  it('closes every code block it opens (an open one swallows the headings after it)', () => {
    const unclosed = files.filter((file) => parseMarkdown(readFileSync(file, 'utf8')).unclosed).map(relative);
    expect(unclosed).toEqual([]);
  });

  it('names no path outside the repository (no ../shared, no /work/)', () => {
    const outside = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => /\.\.\/shared\b|(?:^|[\s(`'"])\/work\//.test(line))
        .map(({ index }) => `${relative(file)}:${index + 1}`),
    );
    expect(outside).toEqual([]);
  });

  it('has a curl example of every route with each of its methods (docs/api-guide.md or docs/api-contract.md)', () => {
    const calls = CURL_DOCUMENTS.flatMap((document) =>
      curlCallsOf(readFileSync(path.join(root, document), 'utf8')),
    );
    const missing = routes.flatMap((route) =>
      route.methods
        .filter(
          (method) =>
            !calls.some((call) => call.method === method && pathPattern(route.path).test(call.path)),
        )
        .map((method) => `${method} ${route.path} (${route.name})`),
    );
    expect(missing).toEqual([]);
  });

  it("lists exactly the routes there are in the API guide's endpoint table", () => {
    const guide = readFileSync(path.join(root, 'docs', 'api-guide.md'), 'utf8');
    const section = guide.split(/^## Every endpoint\s*$/m)[1]?.split(/^## /m)[0] ?? '';
    const rows = [...section.matchAll(/^\|\s*([A-Z, ]+?)\s*\|\s*`([^`]+)`\s*\|/gm)].map(
      (m) => `${(m[1] ?? '').split(/,\s*/).sort().join(', ')} ${m[2]}`,
    );
    const expected = routes.map((route) => `${[...route.methods].sort().join(', ')} ${route.path}`);
    expect([...rows].sort()).toEqual([...expected].sort());
  });

  it(`keeps the README a front door of at most ${README_MAX_LINES} lines (the detail is in docs/)`, () => {
    const lines = readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });
});
