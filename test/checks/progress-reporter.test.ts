/**
 * A piped test run (CI, `| tee`) says when each file starts; on a terminal, where Jest's own
 * status line shows the running files, it adds nothing.
 */
import path from 'node:path';

const ProgressReporter = require('../support/progress-reporter.js');
const repoRoot = path.resolve(__dirname, '..', '..');

function reporterWritingTo(isTTY: boolean) {
  const lines: string[] = [];
  const reporter = new ProgressReporter({ rootDir: repoRoot });
  reporter.stream = { isTTY, write: (text: string) => lines.push(text) };
  return { reporter, lines };
}

it('piped: says how many files will run, then names each file as it starts', () => {
  const { reporter, lines } = reporterWritingTo(false);
  reporter.onRunStart({ numTotalTestSuites: 120 });
  reporter.onTestFileStart({ path: path.join(repoRoot, 'test/integration/articles.test.ts') });
  reporter.onTestFileStart({ path: path.join(repoRoot, 'test/unit/core/slug.test.ts') });
  expect(lines).toEqual([
    "Running 120 test files; a file's results print when it ends.\n",
    expect.stringMatching(/^\[ {3}0 s\] started test\/integration\/articles\.test\.ts\n$/),
    expect.stringMatching(/^\[ {3}0 s\] started test\/unit\/core\/slug\.test\.ts\n$/),
  ]);
});

it('on a terminal: prints nothing (Jest shows the running files itself)', () => {
  const { reporter, lines } = reporterWritingTo(true);
  reporter.onRunStart({ numTotalTestSuites: 1 });
  reporter.onTestFileStart({ path: path.join(repoRoot, 'test/integration/articles.test.ts') });
  expect(lines).toEqual([]);
});

it("is one of the reporters of npm test and of the end-to-end tests, beside Jest's own", () => {
  for (const config of ['../../jest.config.js', '../../jest.e2e.config.js']) {
    expect(require(config).reporters).toEqual(['default', '<rootDir>/test/support/progress-reporter.js']);
  }
});
