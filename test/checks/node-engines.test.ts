/**
 * A fresh install says nothing false (issue 28, item 9): every Node version `engines` in
 * package.json names is accepted by every package of the lock file, so `npm install` on any of
 * them warns no EBADENGINE, and the README and the local-development page name the same
 * minimums.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

// semver's own `satisfies` (npm's), as the copy every install has at the top of node_modules.
const semver: { satisfies(version: string, range: string): boolean } = require('semver');

const root = path.join(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const packageJson = JSON.parse(read('package.json')) as { engines: { node: string } };
const lock = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; os?: string[] }>;
};

/**
 * The versions where any of `ranges` can change its answer: each version a range names and the
 * one just below it, and every major from 18 to 30.
 */
function boundaries(ranges: string[]): string[] {
  const points = new Set<string>();
  for (let major = 18; major <= 30; major++) points.add(`${major}.0.0`);
  for (const range of ranges) {
    for (const [, a = '0', b = '0', c = '0'] of range.matchAll(/(\d+)(?:\.(\d+))?(?:\.(\d+))?/g)) {
      const [x, y, z] = [Number(a), Number(b), Number(c)];
      points.add(`${x}.${y}.${z}`);
      if (z > 0) points.add(`${x}.${y}.${z - 1}`);
      else if (y > 0) points.add(`${x}.${y - 1}.999`);
      else if (x > 0) points.add(`${x - 1}.999.999`);
    }
  }
  return [...points];
}

/** Each `engines.node` range of the lock file, with the packages that declare it. */
function dependencyRanges(): Map<string, string[]> {
  const ranges = new Map<string, string[]>();
  for (const [name, entry] of Object.entries(lock.packages)) {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    // A binary for another operating system is never installed where it would not run.
    if (!name || !range || entry.os) continue;
    ranges.set(range, [...(ranges.get(range) ?? []), `${name}@${entry.version}`]);
  }
  return ranges;
}

describe('Node versions', () => {
  const ranges = dependencyRanges();
  const ours = boundaries([packageJson.engines.node, ...ranges.keys()]).filter((version) =>
    semver.satisfies(version, packageJson.engines.node),
  );

  it('names versions of 20, 22 and 24', () => {
    expect(ours).toEqual(expect.arrayContaining(['20.19.0', '22.13.0', '24.0.0']));
  });

  it('names only versions every package of the lock file accepts (no EBADENGINE on any of them)', () => {
    const refusals: string[] = [];
    for (const [range, packages] of ranges) {
      const refused = ours.filter((version) => !semver.satisfies(version, range));
      if (refused.length > 0) refusals.push(`${packages.join(', ')} (${range}) refuse ${refused.join(', ')}`);
    }
    expect(refusals).toEqual([]);
  });

  it.each(['README.md', 'docs/local-development.md'])('%s names the same minimums', (file) => {
    const text = read(file);
    for (const minimum of ['20.19+', '22.13+']) expect(text).toContain(minimum);
  });
});
