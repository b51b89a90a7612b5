/**
 * Says when each test file starts, where Jest's own reporter cannot: on a terminal Jest shows the
 * files it runs in a live status line, but piped (CI, `| tee`, an editor's task) it prints a file
 * only when it ends, so a run's first minute, spent on its longest files, passed without a line.
 * On a terminal this reporter prints nothing.
 */
const path = require('node:path');

class ProgressReporter {
  /** @param {import('@jest/types').Config.GlobalConfig} globalConfig */
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.stream = process.stderr;
    this.startedAt = Date.now();
  }

  quiet() {
    return Boolean(this.stream.isTTY);
  }

  /** @param {{ numTotalTestSuites: number }} results */
  onRunStart(results) {
    this.startedAt = Date.now();
    if (this.quiet()) return;
    const files = results.numTotalTestSuites;
    this.stream.write(
      `Running ${files} test file${files === 1 ? '' : 's'}; a file's results print when it ends.\n`,
    );
  }

  /** @param {{ path: string }} test */
  onTestFileStart(test) {
    if (this.quiet()) return;
    const seconds = Math.round((Date.now() - this.startedAt) / 1000);
    this.stream.write(
      `[${String(seconds).padStart(4)} s] started ${path.relative(this.rootDir, test.path)}\n`,
    );
  }
}

module.exports = ProgressReporter;
