// ESLint (flat config): typescript-eslint's recommended rules everywhere, the React hooks rules in the
// renderer, and the architecture's import boundaries, which `npm test` enforces (test/lint.test.ts):
// - the domain is plain functions: no HTTP (http/, routes/, Fastify) in main/server/domain/;
// - the scene's code (main/server/scenes/) queries its tables only through scenes/queries.ts, and the
//   recognition engine (main/server/recognition/) never calls the scene's code;
// - the renderer runs in the browser: from the server it imports types only (`import type`), which the
//   bundle never contains.
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'models/**', 'build/**', 'samples/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // Generic code over run-time-chosen tables and JSON documents uses `any` where Kysely's and
      // TypeBox's types cannot follow; each such place says why.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true }],
    },
  },
  {
    files: ['main/server/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/http/*', '**/routes/*', '**/routes/**'], message: 'The domain is plain functions: no HTTP layer in it.' },
            { group: ['fastify', 'fastify-plugin', '@fastify/*'], message: 'The domain is plain functions: no Fastify in it.' },
          ],
        },
      ],
    },
  },
  {
    files: ['main/server/scenes/**/*.ts'],
    ignores: ['main/server/scenes/queries.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)$/]",
          message: "The scene's queries live in scenes/queries.ts: add or use a function there.",
        },
      ],
    },
  },
  {
    files: ['main/server/recognition/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/scenes/*', '**/scenes/**'], message: "The recognition engine is called by the scene's code and calls none of it." }] }],
    },
  },
  {
    files: ['renderer/src/**/*.{ts,tsx}'],
    // The renderer's tests run in Node against a real server.
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      // The rules of hooks. (The plugin's React Compiler rules are not on: the app does not use the compiler.)
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/main/**', '**/preload/**'], allowTypeImports: true, message: 'The renderer imports only types from the server.' },
            { group: ['fastify', 'kysely', 'better-sqlite3', 'sharp', 'onnxruntime-node', 'node:*'], message: 'The renderer runs in the browser.' },
          ],
        },
      ],
    },
  },
);
