/**
 * Unit tests run alone, no emulator, no child process (`npm run test:unit`); checks compare
 * generated or foreign artifacts (the typed client, the plugin's PHP); integration tests share
 * emulators started once per run.
 */
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
};
