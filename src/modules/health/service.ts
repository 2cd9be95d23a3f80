import type { Database } from '../../db/client.ts';
import { migrationsAreCurrent } from '../../db/migrate.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Readiness } from './schemas.ts';

const CHECK_TIMEOUT_MS = 2000;

export async function checkReadiness(database: Database, jobs: JobQueue | undefined): Promise<Readiness> {
  const [databaseUp, migrationsCurrent] = await Promise.all([
    withTimeout(database.pool.query('SELECT 1').then(() => true)),
    withTimeout(migrationsAreCurrent(database.pool)),
  ]);
  const checks = {
    database: databaseUp ? 'ok' : 'fail',
    migrations: migrationsCurrent ? 'ok' : 'fail',
    jobs: jobs?.isRunning() ? 'ok' : 'fail',
  } as const;
  const ready = Object.values(checks).every((state) => state === 'ok');
  return { status: ready ? 'ok' : 'unavailable', checks };
}

/** A check that errors or hangs counts as failed; readiness must answer quickly either way. */
async function withTimeout(check: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check.catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
