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
      { find: /^gate-audit\/otel$/, replacement: fileURLToPath(new URL('./src/otel/index.ts', import.meta.url)) },
      { find: /^gate-audit$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    testTimeout: 20_000,
    // The TUI tests check colour against NO_COLOR; ink's colour detection sees no terminal otherwise.
    env: { FORCE_COLOR: '1' },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.{ts,tsx}'],
      reporter: ['text-summary'],
      reportsDirectory: 'coverage',
      thresholds: {
        'src/enforce/**': { lines: 90 },
        'src/walker/**': { lines: 90 },
      },
    },
  },
});
