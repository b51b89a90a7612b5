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
  // Two files at a time on 2 cores (Jest's default there is one, cores - 1): the integration files
  // spend most of their time waiting on child processes and emulators, and each has its own
  // tables and queues (a random prefix) or its own data folder, emulators and ports.
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
};
