import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PgBoss } from 'pg-boss';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { runMigrations } from '../src/db/migrate.ts';
import { adminQuery, withDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A connection URL to the test server's maintenance database (used to create and drop databases). */
    adminDatabaseUrl: string;
    /** A migrated database (with the job queue's schema) that each test file clones. */
    templateDatabase: string;
  }
}

/**
 * One PostgreSQL for the whole run: the embedded cluster, or the server at TEST_DATABASE_URL.
 * A template database is migrated once; test files clone it (CREATE DATABASE … TEMPLATE).
 */
export default async function setup(project: TestProject) {
  let adminUrl = process.env.TEST_DATABASE_URL;
  let stopCluster = async () => {};
  let dataDir: string | undefined;
  if (!adminUrl) {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'kh-test-pg-'));
    // As root the cluster runs as the postgres user, which must be able to enter the directory.
    chmodSync(dataDir, 0o755);
    const cluster = await startEmbeddedPostgres({ dataDir, port: await freePort() });
    adminUrl = withDatabase(cluster.url, 'postgres');
    stopCluster = cluster.stop;
  }

  // Each project of the run (vitest.config.ts) has its own: they are set up in the same process.
  const template = `kh_template_${process.pid}_${project.name.replace(/\W/g, '_')}`;
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${template}`);
  await adminQuery(adminUrl, `CREATE DATABASE ${template}`);
  const templateUrl = withDatabase(adminUrl, template);
  await runMigrations(templateUrl);
  const boss = new PgBoss({
    connectionString: templateUrl,
    schema: 'pgboss',
    supervise: false,
    schedule: false,
  });
  await boss.start();
  await boss.stop({ graceful: false });

  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);

  return async () => {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await stopCluster();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
}
