import type { Config } from '../config.ts';
import type { StopStep } from '../lib/stop-steps.ts';
import { connectDatabase, type Database } from './client.ts';
import { startEmbeddedPostgres } from './embedded.ts';
import { runMigrations } from './migrate.ts';

/**
 * The database the configuration names, migrated and connected: DATABASE_URL, or the embedded
 * cluster under DATA_DIR, started here. How to stop what it started is pushed onto `stopSteps`
 * (the pool, then the cluster), for the caller to run backwards.
 */
export async function openDatabase(
  config: Config,
  stopSteps: StopStep[],
  options: { poolSize: number; log?: (message: string) => void },
): Promise<{ url: string; database: Database }> {
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      port: config.embeddedPgPort,
      ...(options.log ? { log: options.log } : {}),
    });
    stopSteps.push({ name: 'embedded PostgreSQL', stop: () => embedded.stop() });
    url = embedded.url;
  }
  await runMigrations(url);
  const database = connectDatabase(url, { max: options.poolSize });
  stopSteps.push({ name: 'database pool', stop: () => database.close() });
  return { url, database };
}
