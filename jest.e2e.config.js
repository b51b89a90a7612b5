/**
 * End-to-end tests against a real WordPress (Debian's packages, test/e2e/wordpress/peer.sh)
 * with the plugin of this repo, plus the same AWS emulators as the integration tests.
 * Run with `npm run test:e2e`; needs the packages `peer.sh install` sets up.
 */
/** @type {import('jest').Config} */
module.exports = {
  ...require('./test/support/jest-common.js'),
  testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
  globalSetup: '<rootDir>/test/e2e/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/e2e/support/global-teardown.ts',
  maxWorkers: 1,
  // Jest's own, and a line as each file starts when the output is piped (CI), where Jest's
  // reporter prints a file only when it ends (test/support/progress-reporter.js).
  reporters: ['default', '<rootDir>/test/support/progress-reporter.js'],
  testTimeout: 120_000,
};
