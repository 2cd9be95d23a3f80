import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'sdk/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    globalSetup: ['test/global-setup.ts'],
    // Each file gets its own database cloned from a migrated template, so files run in parallel.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
