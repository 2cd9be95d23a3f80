import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function adminQuery(adminUrl: string, sql: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database cloned from the run's template; `drop` removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `kh_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${inject('templateDatabase')}`);
  return {
    url: withDatabase(adminUrl, name),
    drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
