// @ts-check
/**
 * Mutation testing (`npm run mutation`): Stryker mutates src/enforce, src/walker, src/policy and src/frameworks and
 * runs the vitest tests that cover each mutant (vitest.mutation.config.ts). Incremental: the results of the last run are
 * kept in reports/mutation/incremental.json (git-ignored), so a rerun tests only mutants whose code or covering
 * tests changed. For a narrower run: `npx stryker run --mutate src/enforce/execution-check.ts`.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: [
    'src/enforce/**/*.ts',
    'src/walker/**/*.ts',
    'src/policy/**/*.ts',
    'src/frameworks/**/*.ts',
    // A two-line process entry point run as a child process; nothing in-process can observe its mutants.
    '!src/frameworks/strands/sdk-self-test-main.ts',
  ],
  coverageAnalysis: 'perTest',
  // Two cores, shared: one test runner at a time.
  concurrency: 1,
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  timeoutMS: 10_000,
  cleanTempDir: 'always',
  tempDirName: '.stryker-tmp',
};
