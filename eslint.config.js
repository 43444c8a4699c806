// Typed lint over the sources, tests and fixtures; module boundaries are checked by dependency-cruiser.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'coverage/**',
      'reports/**',
      // Scratch files tests write (git-ignored).
      'test/.generated/**',
      '.stryker-tmp/**',
      'node_modules/**',
      'bin/**',
      'scripts/**',
      'bench/*.mjs',
      // The process-guard scenarios: plain JavaScript each run as its own Node process (Node 20 has no TypeScript).
      'fixtures/guard/**/*.mjs',
      // A module hook (and its registrations) Node loads as plain JavaScript in a child process: packages hidden from
      // it (test/langgraph.test.ts, test/cli/commands/audit.optional-packages.test.ts).
      'test/helpers/missing-packages-hook.mjs',
      'test/helpers/missing-packages-register.mjs',
      'test/helpers/no-strands-register.mjs',
      // The LangGraph.js-only app, plain JavaScript run as its own Node process (test/langgraph.test.ts, pack-install).
      'fixtures/apps/langgraph-only/*.mjs',
      '*.config.*',
      '.dependency-cruiser.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/explicit-function-return-type': ['error', { allowExpressions: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['test/**', 'fixtures/**'],
    rules: { '@typescript-eslint/explicit-function-return-type': 'off' },
  },
);
