// ESLint (`npm run lint`, also run by `npm test`): typescript-eslint's recommended rules and the one-reader-of-the-environment rule.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const ENV_MESSAGE = 'Only core/config/load.ts reads the environment: take the value from loadConfig.';

export default defineConfig(
  { ignores: ['node_modules/', 'dist/', '.cache/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Ambient declarations only: `declare global { namespace Express … }` is how Express's Request is extended.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
    },
  },
  {
    // The pages' script runs in the browser.
    files: ['web/**/*.js', 'scripts/eval/workbench/public/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', location: 'readonly', history: 'readonly', navigator: 'readonly', Element: 'readonly' },
    },
  },
  {
    // The workbench page: fetch and forms, and Observable Plot loaded as a script before it.
    files: ['scripts/eval/workbench/public/*.js'],
    languageOptions: { globals: { fetch: 'readonly', FormData: 'readonly', Node: 'readonly', alert: 'readonly', Plot: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Configuration is read once, by loadConfig in core/config/load.ts, and handed down as values.
    // scripts/ and test/ are exempt: they are entry points that pass process.env to loadConfig
    // and build the environments of the child processes they start (services, the API, workers).
    files: ['core/**/*.ts', 'src/**/*.ts', 'indexer/**/*.ts', 'importer/**/*.ts', 'pipeline/**/*.ts'],
    ignores: ['core/config/load.ts'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: ENV_MESSAGE }],
      'no-restricted-imports': ['error', { paths: ['process', 'node:process'].map((name) => ({ name, importNames: ['env'], message: ENV_MESSAGE })) }],
    },
  },
);
