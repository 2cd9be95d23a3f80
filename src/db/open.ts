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
  options: { poolSize: number; log?: (message: string) => void; warn?: (message: string) => void },
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
  const warning = await textSearchWarning(database);
  if (warning) options.warn?.(warning);
  return { url, database };
}

/**
 * What to tell an operator whose database splits words by the C locale's character classes:
 * text search then reads every non-ASCII character as a letter, so "Northwind’s" is one word and
 * “hello” keeps its quotes, found by neither "Northwind" nor "hello". A new embedded cluster
 * never does (embedded.ts); one made before it did, and an external database may.
 */
export async function textSearchWarning(database: Database): Promise<string | null> {
  const { rows } = await database.pool.query<{ ctype: string }>(
    'select datctype as ctype from pg_database where datname = current_database()',
  );
  const ctype = rows[0]?.ctype ?? '';
  if (!['C', 'POSIX'].includes(ctype)) return null;
  return (
    `the database's LC_CTYPE is ${ctype}: search and answers treat typographic punctuation (’ “ ” — …) ` +
    'as letters, so words written with it are missed. Create the database with a UTF-8 LC_CTYPE ' +
    '(C.UTF-8, en_US.UTF-8) and restore a dump into it; see README, "Running against an external PostgreSQL".'
  );
}
