/**
 * Jest settings shared by `jest.config.js` and `jest.e2e.config.js`: TypeScript, and the
 * ES-module-only packages we load (htmlparser2 12 and entities 8), compiled to CommonJS for Jest's
 * runtime by swc, file by file (type-checking is `npm run typecheck`'s job): a cold run of the
 * unit tests took 14-15.5 s with ts-jest, 9.5 s with swc. Every other package in node_modules is
 * loaded as it is.
 */
const ES_MODULE_PACKAGES = ['htmlparser2', 'entities'];

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(ts|js)$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ES_MODULE_PACKAGES.join('|')})/)`],
  // The same substitutions as the functions' bundles (ESBUILD_ALIASES): htmlparser2's parser
  // alone, and no postcss (sanitize-html would only need it for style attributes we never keep).
  moduleNameMapper: {
    '^htmlparser2$': '<rootDir>/node_modules/htmlparser2/dist/Parser.js',
    '^postcss$': '<rootDir>/functions/shared/bundling/postcss-unused.ts',
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['<rootDir>/test/support/quiet-env.ts'],
};
