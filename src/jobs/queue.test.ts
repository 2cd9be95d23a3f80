import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { connectDatabase, type Database } from '../db/client.ts';
import { createLogger } from '../logger.ts';
import { startJobQueue } from './queue.ts';

describe('job queue', () => {
  let testDatabase: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database;

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    database = connectDatabase(testDatabase.url);
  });
  afterAll(async () => {
    await database.close();
    await testDatabase.drop();
  });

  it('runs a sent job with its data, and stop() waits for a running job to finish', async () => {
    const events: string[] = [];
    const jobs = await startJobQueue({
      url: testDatabase.url,
      db: database.db,
      logger: createLogger('silent'),
      pollingIntervalSeconds: 0.5,
      jobs: [
        {
          name: 'slow-test-job',
          handler: async (data) => {
            events.push(`started ${(data as { label: string }).label}`);
            await sleep(700);
            events.push('finished');
          },
        },
      ],
    });
    expect(jobs.isRunning()).toBe(true);
    await jobs.send('slow-test-job', { label: 'one' });
    const deadline = Date.now() + 10_000;
    while (!events.includes('started one') && Date.now() < deadline) await sleep(50);
    expect(events).toEqual(['started one']);

    await jobs.stop(5000);
    events.push('stopped');
    expect(events).toEqual(['started one', 'finished', 'stopped']);
    expect(jobs.isRunning()).toBe(false);

    const { rows } = await database.pool.query<{ state: string }>(
      "SELECT state FROM pgboss.job WHERE name = 'slow-test-job'",
    );
    expect(rows.map((row) => row.state)).toEqual(['completed']);
  });

  it('registers the cron schedule of scheduled jobs', async () => {
    const jobs = await startJobQueue({
      url: testDatabase.url,
      db: database.db,
      logger: createLogger('silent'),
      jobs: [{ name: 'cron-test-job', cron: '*/5 * * * *', handler: async () => {} }],
    });
    try {
      const { rows } = await database.pool.query<{ cron: string }>(
        "SELECT cron FROM pgboss.schedule WHERE name = 'cron-test-job'",
      );
      expect(rows).toEqual([{ cron: '*/5 * * * *' }]);
    } finally {
      await jobs.stop(1000);
    }
  });
});
