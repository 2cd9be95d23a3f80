import { defineConfig } from 'vitest/config';

/** Browser journeys: the real service (embedded PostgreSQL) driven by Chromium. `npm run test:e2e`. */
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['e2e/**/*.e2e.ts'],
    // One service and one browser, shared by the journeys of a file, in order.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
