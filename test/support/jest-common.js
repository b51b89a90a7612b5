/**
 * Jest settings shared by `jest.config.js` and `jest.e2e.config.js`: TypeScript through ts-jest,
 * and the ES-module-only packages we load (htmlparser2 12 and entities 8) compiled to CommonJS
 * for Jest's runtime; every other package in node_modules is loaded as it is.
 */
const ES_MODULE_PACKAGES = ['htmlparser2', 'entities'];

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    '^.+\\.js$': [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ES_MODULE_PACKAGES.join('|')})/)`],
  // The same substitutions as the functions' bundles (LAZY_MODULES, ESBUILD_ALIASES): htmlparser2's
  // parser alone, no postcss (sanitize-html would only need it for style attributes we never keep)
  // and no JMESPath engine (Powertools' idempotency would only need it for expressions we never set).
  moduleNameMapper: {
    '^htmlparser2$': '<rootDir>/node_modules/htmlparser2/dist/Parser.js',
    '^postcss$': '<rootDir>/functions/shared/bundling/postcss-unused.ts',
    '^@aws-lambda-powertools/jmespath(/functions)?$':
      '<rootDir>/functions/shared/bundling/jmespath-unused.ts',
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['<rootDir>/test/support/quiet-env.ts'],
};
