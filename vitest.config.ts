import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Examples import the package by name, as users do.
    alias: [
      {
        find: /^gate-audit\/stores\/postgres$/,
        replacement: fileURLToPath(new URL('./src/stores/postgres.ts', import.meta.url)),
      },
      { find: /^gate-audit\/vitest$/, replacement: fileURLToPath(new URL('./src/vitest.ts', import.meta.url)) },
      { find: /^gate-audit\/langgraph$/, replacement: fileURLToPath(new URL('./src/langgraph.ts', import.meta.url)) },
      { find: /^gate-audit\/otel$/, replacement: fileURLToPath(new URL('./src/otel/index.ts', import.meta.url)) },
      { find: /^gate-audit$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    // A hang guard, not a speed check: a test that runs several child processes (the built command, SDK copies)
    // takes 8-10 s alone and two to three times that while the other worker loads the same two cores.
    testTimeout: 60_000,
    // The same for hooks: a beforeAll that runs a scenario as a child process (spawnSync) waits for it, and on a
    // loaded machine that passes vitest's 10 s default.
    hookTimeout: 60_000,
    // Most of the suite's time is spent waiting on child processes (the built command, bash, PostgreSQL, a
    // browser), so two files run at once even on a two-core machine, where vitest's default (cores - 1) runs one.
    maxWorkers: Math.max(availableParallelism() - 1, 2),
    // The TUI tests check colour against NO_COLOR; ink's colour detection sees no terminal otherwise.
    env: { FORCE_COLOR: '1' },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.{ts,tsx}'],
      // The process guard stands on the SDK's classes for the rest of a process, so its tests run each scenario
      // as a Node process of its own (test/enforce/process-guard.test.ts, test/cli/register.process-guard.test.ts), from
      // dist/: coverage of the test process cannot see those lines, so they are left out of its count.
      exclude: [
        'src/enforce/process-guard.ts',
        'src/frameworks/strands/process-guard.ts',
        'src/enforce/guard-hooks.ts',
        'src/cli/register.ts',
        'src/cli/registered-guard.ts',
      ],
      reporter: ['text-summary'],
      reportsDirectory: 'coverage',
      thresholds: {
        'src/enforce/**': { lines: 90 },
        'src/walker/**': { lines: 90 },
        // The SDK's private shape (moved out of src/walker and src/enforce) and the LangGraph adapter: the same bar
        // as the folders it came from, now that its modules have tests of their own.
        'src/frameworks/**': { lines: 90 },
      },
    },
  },
});
