import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

// Any constant works; it only has to be the same for every instance of the service.
const MIGRATION_LOCK_ID = 727_001;

/**
 * Applies pending migrations. A session-level advisory lock makes instances that start together
 * take turns: the first applies the migrations, the others find nothing left to do.
 */
export async function runMigrations(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: 'knowledge-hub-migrate' });
  // A lost connection also rejects the running query; without a listener it would crash the process.
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await migrate(drizzle(client), { migrationsFolder });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
    await client.end();
  }
}

const expectedHashes = readMigrationFiles({ migrationsFolder }).map((migration) => migration.hash);

/** True when every migration shipped with this build has been applied to the database. */
export async function migrationsAreCurrent(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ hash: string }>('SELECT hash FROM drizzle.__drizzle_migrations');
  const applied = new Set(rows.map((row) => row.hash));
  return expectedHashes.every((hash) => applied.has(hash));
}
