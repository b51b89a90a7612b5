/**
 * The test run's order on a fresh clone (no durations recorded by Jest): the files measured as
 * the longest start first, so that they do not run alone at the end on two cores.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

const Sequencer = require('../support/test-sequencer.js');
const MEASURED_SECONDS: Record<string, number> = Sequencer.MEASURED_SECONDS;
const repoRoot = path.resolve(__dirname, '..', '..');

/** A test as Jest gives it to the sequencer, in a project with no recorded durations. */
function freshCloneTest(file: string) {
  return { path: path.join(repoRoot, file), context: { config: { rootDir: repoRoot, cache: false } } };
}

it('measures only files that exist', () => {
  const missing = Object.keys(MEASURED_SECONDS).filter((file) => !existsSync(path.join(repoRoot, file)));
  expect(missing).toEqual([]);
});

it('runs the measured files longest first, then the others', () => {
  const files = [
    'test/unit/core/slug.test.ts',
    'test/integration/articles.test.ts',
    'test/integration/rate-limit.test.ts',
    'test/integration/local-supervision-restart.test.ts',
  ];
  const sorted = new Sequencer({}).sort(files.map(freshCloneTest)) as { path: string }[];
  expect(sorted.map((test) => path.relative(repoRoot, test.path))).toEqual([
    'test/integration/local-supervision-restart.test.ts',
    'test/integration/articles.test.ts',
    'test/integration/rate-limit.test.ts',
    'test/unit/core/slug.test.ts',
  ]);
});
