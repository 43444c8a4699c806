import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Examples import the package by name, as users do.
    alias: [
      { find: /^gate-audit\/vitest$/, replacement: fileURLToPath(new URL('./src/vitest.ts', import.meta.url)) },
      { find: /^gate-audit$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary'],
      reportsDirectory: 'coverage',
      thresholds: {
        'src/enforce/**': { lines: 90 },
        'src/walker/**': { lines: 90 },
      },
    },
  },
});
