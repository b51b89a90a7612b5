/**
 * Unit tests run alone, no emulator, no child process (`npm run test:unit`); checks compare
 * generated or foreign artifacts (the typed client, the plugin's PHP); integration tests share
 * emulators started once per run.
 */
const os = require('node:os');
const common = require('./test/support/jest-common.js');

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'checks', testMatch: ['<rootDir>/test/checks/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/emulators-global-setup.ts',
      globalTeardown: '<rootDir>/test/support/emulators-global-teardown.ts',
    },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
  ],
  testTimeout: 60_000,
  // Longest files first, with measured durations when Jest has none recorded (a fresh clone).
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  // Jest's own, and a line as each file starts when the output is piped (CI), where Jest's
  // reporter prints a file only when it ends (test/support/progress-reporter.js).
  reporters: ['default', '<rootDir>/test/support/progress-reporter.js'],
  // One file more than there are cores (Jest's default is one fewer): the integration files spend
  // much of their time waiting on child processes, emulators and timers, and each has its own
  // tables and queues (a random prefix) or its own data folder, emulators and ports. A fresh
  // clone on 2 cores, 2026-11-28: 206 s with three, 248 s with two (docs/local-development.md).
  maxWorkers: os.availableParallelism() + 1,
  // A worker ends its last file with a heap of ~0.8-1.1 GB and Node then takes ~1.1-1.3 s to exit
  // (tearing that heap down; nothing left open but its pipes to Jest). Jest's 500 ms killed one
  // in every whole run and printed a false "tests leaking due to improper teardown" warning.
  workerGracefulExitTimeout: 3_000,
};
