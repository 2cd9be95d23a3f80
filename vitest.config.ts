import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'sdk/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    globalSetup: ['test/global-setup.ts'],
    // Each file gets its own database cloned from a migrated template, so files run in parallel:
    // two at a time (Vitest's default on a 2-CPU machine is one), each worker running file after
    // file without reloading the app's modules, which cost about 5 s a file (1,480 tests: 17.5 min
    // one file per process, 11 min two, under 6 min two reusing workers). A file that mocks a
    // module imports it afresh (import-jobs.test.ts).
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
