import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DestinationStream } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { type App, buildApp } from '../../src/app.ts';
import { type Config, parseConfig } from '../../src/config.ts';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { jobDefinitions } from '../../src/jobs/index.ts';
import { type JobQueue, startJobQueue } from '../../src/jobs/queue.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestDatabase } from './database.ts';

export type TestApp = {
  app: App;
  database: Database;
  jobs: JobQueue;
  clock: TestClock;
  config: Config;
  databaseUrl: string;
  close(): Promise<void>;
};

type Options = {
  /** Extra environment, as a deployment would set it. */
  env?: Record<string, string>;
  /** Reuse a database (another TestApp's), to test several instances on one database. */
  databaseUrl?: string;
  /** Where the log goes instead (e.g. a test reading its lines); the level stays the config's. */
  logDestination?: DestinationStream;
  /** A built web app of the test's own (default: the project's web/dist, when built). */
  webAppDir?: string;
};

/** The whole app, as server.ts builds it, on its own database; requests go through `app.inject()`. */
export async function buildTestApp(options: Options = {}): Promise<TestApp> {
  const owned = options.databaseUrl ? undefined : await createTestDatabase();
  // Recordings are stored under DATA_DIR: each app gets its own, removed when it closes.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kh-test-data-'));
  const databaseUrl = options.databaseUrl ?? (owned?.url as string);
  const config: Config = {
    ...parseConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATA_DIR: dataDir,
      ...options.env,
    }),
    secret: 'test-secret-that-is-at-least-32-characters-long',
  };
  const logger = createLogger(config.logLevel, options.logDestination);
  const database = connectDatabase(databaseUrl, { max: 5 });
  const clock = new TestClock();
  const jobs = await startJobQueue({
    url: databaseUrl,
    db: database.db,
    logger,
    jobs: jobDefinitions(config, clock),
    pollingIntervalSeconds: 0.5,
  });
  const app = await buildApp({ config, database, jobs, logger, clock, webAppDir: options.webAppDir });
  return {
    app,
    database,
    jobs,
    clock,
    config,
    databaseUrl,
    close: async () => {
      await app.close();
      await jobs.stop(1000);
      await database.close();
      await owned?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The system time, unless a test moves it: `clock.advance(8 * DAY)`. */
export class TestClock implements Clock {
  private offsetMs = 0;

  now() {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number) {
    this.offsetMs += ms;
  }

  reset() {
    this.offsetMs = 0;
  }
}

/** Registers beforeAll/afterAll for a file-wide TestApp and returns a getter for it. */
export function useTestApp(options: Options = {}): () => TestApp {
  let testApp: TestApp | undefined;
  beforeAll(async () => {
    testApp = await buildTestApp(options);
  });
  afterAll(async () => {
    await testApp?.close();
  });
  return () => {
    if (!testApp) throw new Error('useTestApp: the app is not built yet (use it inside a test)');
    return testApp;
  };
}
