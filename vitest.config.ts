import { defineConfig } from 'vitest/config';

export default defineConfig({
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
