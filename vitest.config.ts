import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that need a process of their own: one that mocks a module (vi.mock), which a worker must
 * load afresh through the mock, and the SDK's, which compares the whole OpenAPI document: its
 * components come from zod's global registry, which a worker that has loaded the app for other
 * files holds more in (seen as extra `…Input` schemas).
 */
const ISOLATED = ['src/modules/imports/import-jobs.test.ts', 'sdk/sdk.test.ts'];
const GLOBAL_SETUP = ['test/global-setup.ts'];

export default defineConfig({
  test: {
    // Each file gets its own database cloned from a migrated template, so files run in parallel:
    // two at a time (Vitest's default on a 2-CPU machine is one). In the `shared` project each
    // worker runs file after file without reloading the app's modules, which cost about 5 s a
    // file (1,480 tests: 17.5 min one file per process, 11 min two, about 6 min two reusing
    // workers). A few files run each in a process of their own (`isolated`, see ISOLATED).
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          globalSetup: GLOBAL_SETUP,
          include: [
            'src/**/*.test.ts',
            'test/**/*.test.ts',
            'sdk/**/*.test.ts',
            'web/src/**/*.test.{ts,tsx}',
          ],
          exclude: [...configDefaults.exclude, ...ISOLATED],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', globalSetup: GLOBAL_SETUP, include: ISOLATED } },
    ],
  },
});
