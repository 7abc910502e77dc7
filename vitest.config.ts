import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'renderer/src/**/*.test.{ts,tsx}'],
    exclude: ['test/e2e/**', 'node_modules/**', 'dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Native modules (better-sqlite3, sharp, onnxruntime) are safest in forked processes.
    pool: 'forks',
    maxWorkers: 2,
  },
});
