import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema/index.ts';

export type Db = NodePgDatabase<typeof schema>;
/** A transaction, as services receive it from `db.transaction(async (tx) => …)`. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export type Database = {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
};

// Return int8 (COUNT(*), SUM) as numbers: our counts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export function connectDatabase(url: string, { max = 10 }: { max?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max, application_name: 'knowledge-hub' });
  // A client losing its connection (database restart, failover, a terminated backend) must not crash
  // the process. The pool reports idle clients here and replaces them; a client checked out for a
  // transaction emits on itself, and without a listener that would be an uncaught exception that
  // ends every request in flight — its query fails anyway and reports the error to its caller.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzle(pool, { schema });
  return { db, pool, close: () => pool.end() };
}
