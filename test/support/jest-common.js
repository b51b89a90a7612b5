/**
 * Jest settings shared by `jest.config.js` and `jest.e2e.config.js`: TypeScript through swc,
 * and the ES-module-only packages we load (htmlparser2 12 and entities 8; linkedom's css-select and
 * its helpers, and its own htmlparser2, entities and html-escaper) compiled to CommonJS for Jest's
 * runtime; every other package in node_modules is loaded as it is.
 */
const ES_MODULE_PACKAGES = [
  'htmlparser2',
  'entities',
  'css-select',
  'css-what',
  'nth-check',
  'boolbase',
  'domutils',
  'domhandler',
  'dom-serializer',
  'html-escaper',
  'domelementtype',
  'cssomnom',
  'uhyphen',
];

/** @param {'typescript' | 'ecmascript'} syntax */
function swcOptions(syntax) {
  return {
    jsc: { parser: { syntax }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  };
}

module.exports = {
  testEnvironment: 'node',
  // swc only strips types and turns ES modules into CommonJS (`npm run typecheck` checks the
  // types); on an empty cache ts-jest cost ~1.5 times its CPU (docs/decisions.md).
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcOptions('typescript')],
    '^.+\\.js$': ['@swc/jest', swcOptions('ecmascript')],
  },
  // A file is left as it is unless the package it belongs to (after its last `node_modules/`,
  // nested copies included) is one of those.
  transformIgnorePatterns: [
    `/node_modules/(?!(?:${ES_MODULE_PACKAGES.join('|')})/)[^/]+/(?:(?!/node_modules/).)*$`,
  ],
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
  setupFiles: ['<rootDir>/test/support/quiet-env.ts', '<rootDir>/test/support/release-async-storage.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/settle-background-work.ts'],
};
