// ESLint flat config: typescript-eslint's recommended rules for the TypeScript sources and
// tests, ESLint's recommended rules for the plain-JS scripts and the dashboard's browser code.
// Formatting is Prettier's job (`npm run format`), so no stylistic rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeGlobals = {
  require: 'readonly',
  module: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  setInterval: 'readonly',
  clearInterval: 'readonly',
  setImmediate: 'readonly',
  URL: 'readonly',
  AbortController: 'readonly',
  fetch: 'readonly',
  performance: 'readonly',
  TextDecoder: 'readonly',
  TextEncoder: 'readonly',
};
const browserGlobals = {
  window: 'readonly',
  document: 'readonly',
  navigator: 'readonly',
  fetch: 'readonly',
  console: 'readonly',
  location: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  URL: 'readonly',
  Blob: 'readonly',
  URLSearchParams: 'readonly',
  HTMLElement: 'readonly',
  Intl: 'readonly',
  requestAnimationFrame: 'readonly',
  ResizeObserver: 'readonly',
  history: 'readonly',
  addEventListener: 'readonly',
  Event: 'readonly',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'artifacts/**', 'src/generated/**'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      // Adapters and tests read untyped provider JSON; `any` there is deliberate and local.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Nest modules are decorated empty classes.
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    // The request path. Node 20's V8 gives an object literal that starts with a spread and goes on
    // (`{ ...a, b }`, `{ ...a, ...b }`) a hidden class of its own on every evaluation: each such
    // object is a new map to build, and every inline cache that sees it misses
    // (docs/performance.md, "Ninth pass"). Object.assign, a literal field by field, or the spread
    // after the first property keep one.
    files: [
      'src/auth/**/*.ts',
      'src/common/**/*.ts',
      'src/completions/**/*.ts',
      'src/limits/**/*.ts',
      'src/metrics/**/*.ts',
      'src/providers/**/*.ts',
      'src/throttling/**/*.ts',
      'src/usage/**/*.ts',
    ],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'ObjectExpression > SpreadElement:first-child ~ :matches(Property, SpreadElement)',
          message:
            'An object literal that starts with a spread and goes on gets a new hidden class every time on Node 20 (docs/performance.md, "Ninth pass"): use Object.assign or list the fields.',
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.js', 'bin/**/*.js', 'test/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', globals: nodeGlobals },
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }] },
  },
  {
    files: ['web/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', globals: browserGlobals },
  },
);
