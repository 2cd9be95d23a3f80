import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { adminQuery, withDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';
import {
  isAlive,
  projectRoot,
  readPidFile,
  type ServiceProcess,
  useProcessSandbox,
  waitForExit,
  waitForHttp,
  waitUntilGone,
} from './helpers/process.ts';

/**
 * Process-level tests: the real service, spawned as `npm start` spawns it, with the embedded
 * PostgreSQL in a temporary DATA_DIR (or an external database), probed over HTTP and signals.
 */

const TEST_TIMEOUT = 60_000;

const sandbox = useProcessSandbox();

type Instance = { service: ServiceProcess; port: number; pgPort: number; dataDir: string };

async function start(
  options: { dataDir?: string; port?: number; pgPort?: number; env?: Record<string, string> } = {},
) {
  const dataDir = options.dataDir ?? sandbox.dataDir();
  const port = options.port ?? (await freePort());
  const pgPort = options.pgPort ?? (await freePort());
  const service = sandbox.start({
    PORT: String(port),
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(pgPort),
    ...options.env,
  });
  return { service, port, pgPort, dataDir } satisfies Instance;
}

async function startHealthy(options: Parameters<typeof start>[0] = {}): Promise<Instance> {
  const instance = await start(options);
  await waitForHttp(instance.service, `http://127.0.0.1:${instance.port}/health`);
  return instance;
}

function postmasterPid(dataDir: string): number {
  const pid = readPidFile(path.join(dataDir, 'postgres', 'postmaster.pid'));
  if (!pid) throw new Error(`no postmaster.pid in ${dataDir}/postgres`);
  return pid;
}

function embeddedUrl({ dataDir, pgPort }: Instance): string {
  const password = readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/knowledge_hub`;
}

async function query<Row extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

async function getJson(url: string) {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, body: (await response.json()) as unknown };
}

const readyBody = { status: 'ok', checks: { database: 'ok', migrations: 'ok', jobs: 'ok' } };

describe('the service process', { timeout: TEST_TIMEOUT }, () => {
  it('starts on an empty DATA_DIR: initialises the cluster, answers /health and /health/ready', async () => {
    const instance = await startHealthy();
    const { service, port, dataDir } = instance;

    const health = await getJson(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', version: expect.any(String) });
    expect(await getJson(`http://127.0.0.1:${port}/health/ready`)).toEqual({ status: 200, body: readyBody });

    expect(service.stdout()).toContain(`http://localhost:${port}/docs`);
    expect(service.stdout()).toContain('initialising a new PostgreSQL cluster');
    expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(statSync(path.join(dataDir, 'secret')).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(dataDir, 'secret'), 'utf8').trim().length).toBeGreaterThanOrEqual(32);
    expect(statSync(path.join(dataDir, 'postgres.password')).mode & 0o777).toBe(0o600);
    expect(readPidFile(path.join(dataDir, 'server.pid'))).toBe(service.pid);
    expect(isAlive(postmasterPid(dataDir))).toBe(true);
    // Reads served from the page cache need no I/O worker processes (src/db/embedded.ts).
    expect(await query(embeddedUrl(instance), 'SHOW io_method')).toEqual([{ io_method: 'sync' }]);
    expect(service.hasExited()).toBe(false);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'stops cleanly on %s: exit 0, PostgreSQL stopped, server.pid removed',
    async (signal) => {
      const { service, dataDir } = await startHealthy();
      const postgres = postmasterPid(dataDir);
      expect(isAlive(postgres)).toBe(true);

      service.child.kill(signal);
      const exit = await waitForExit(service);

      expect(exit, service.output()).toEqual({ code: 0, signal: null });
      expect(service.stdout()).toContain('"msg":"shutting down"');
      expect(service.stdout()).toContain('"msg":"stopped"');
      // The cluster is stopped before the process exits, not left to die on its own.
      expect(isAlive(postgres)).toBe(false);
      expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
      expect(existsSync(path.join(dataDir, 'server.pid'))).toBe(false);
    },
  );

  it('reuses the cluster on a second start: same data, same secret, no initdb', async () => {
    const first = await startHealthy();
    const secret = readFileSync(path.join(first.dataDir, 'secret'), 'utf8');
    const password = readFileSync(path.join(first.dataDir, 'postgres.password'), 'utf8');
    const marker = randomBytes(8).toString('hex');
    await query(embeddedUrl(first), 'CREATE TABLE restart_probe (value text NOT NULL)');
    await query(embeddedUrl(first), 'INSERT INTO restart_probe (value) VALUES ($1)', [marker]);
    first.service.child.kill('SIGTERM');
    expect((await waitForExit(first.service)).code).toBe(0);

    const second = await startHealthy({ dataDir: first.dataDir, port: first.port, pgPort: first.pgPort });

    expect(second.service.stdout()).not.toContain('initialising a new PostgreSQL cluster');
    expect(second.service.stdout()).not.toContain('left running by a previous instance');
    expect(await query(embeddedUrl(second), 'SELECT value FROM restart_probe')).toEqual([{ value: marker }]);
    expect(readFileSync(path.join(second.dataDir, 'secret'), 'utf8')).toBe(secret);
    expect(readFileSync(path.join(second.dataDir, 'postgres.password'), 'utf8')).toBe(password);
    expect(await getJson(`http://127.0.0.1:${second.port}/health/ready`)).toEqual({
      status: 200,
      body: readyBody,
    });
  });

  it.each([
    { variable: 'PORT', value: 'abc', message: 'PORT: must be a whole number between 1 and 65535' },
    {
      variable: 'DATABASE_URL',
      value: 'mysql://x',
      message: 'DATABASE_URL: must be a postgres:// or postgresql:// URL',
    },
    {
      variable: 'EMBEDDED_PG_PORT',
      value: '70000',
      message: 'EMBEDDED_PG_PORT: must be a whole number between 1 and 65535',
    },
  ])(
    'refuses a bad $variable: exit 1, stderr names it, no cluster created',
    async ({ variable, value, message }) => {
      const { service, dataDir } = await start({ env: { [variable]: value } });
      const exit = await waitForExit(service);

      expect(exit, service.output()).toEqual({ code: 1, signal: null });
      expect(service.stderr()).toContain('Invalid configuration:');
      expect(service.stderr()).toContain(message);
      expect(service.stdout()).toBe('');
      expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
      expect(existsSync(path.join(dataDir, 'server.pid'))).toBe(false);
    },
  );

  it('refuses to start when EMBEDDED_PG_PORT is taken: exit 1, stderr says so', async () => {
    const pgPort = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((resolve, reject) => {
      blocker.once('error', reject);
      blocker.listen(pgPort, '127.0.0.1', resolve);
    });
    try {
      const { service, dataDir } = await start({ pgPort });
      const exit = await waitForExit(service);

      expect(exit, service.output()).toEqual({ code: 1, signal: null });
      expect(service.stderr()).toContain('Knowledge Hub could not start');
      expect(service.stderr()).toContain(`Port ${pgPort} for the embedded PostgreSQL is already in use`);
      expect(service.stderr()).toContain('EMBEDDED_PG_PORT');
      // Nothing was left running, and the port is still the blocker's.
      expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
      expect(existsSync(path.join(dataDir, 'server.pid'))).toBe(false);
      expect(blocker.listening).toBe(true);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('runs the migrations once when two instances start together on one empty database', async () => {
    // An empty database (not a clone of the migrated template), so both instances find migrations to run.
    const adminUrl = inject('adminDatabaseUrl');
    const name = `kh_server_${randomBytes(6).toString('hex')}`;
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    sandbox.onCleanup(() => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    const databaseUrl = withDatabase(adminUrl, name);

    const [a, b] = await Promise.all([
      start({ env: { DATABASE_URL: databaseUrl } }),
      start({ env: { DATABASE_URL: databaseUrl } }),
    ]);
    await Promise.all([
      waitForHttp(a.service, `http://127.0.0.1:${a.port}/health/ready`),
      waitForHttp(b.service, `http://127.0.0.1:${b.port}/health/ready`),
    ]);

    for (const instance of [a, b]) {
      expect(await getJson(`http://127.0.0.1:${instance.port}/health/ready`)).toEqual({
        status: 200,
        body: readyBody,
      });
      // DATABASE_URL set: no embedded cluster.
      expect(existsSync(path.join(instance.dataDir, 'postgres'))).toBe(false);
      expect(instance.service.stdout()).not.toContain('embedded PostgreSQL ready');
    }
    const journal = JSON.parse(
      readFileSync(path.join(projectRoot, 'src/db/migrations/meta/_journal.json'), 'utf8'),
    ) as { entries: unknown[] };
    expect(journal.entries.length).toBeGreaterThan(0);
    const [{ count }] = (await query<{ count: number }>(
      databaseUrl,
      'SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations',
    )) as [{ count: number }];
    expect(count).toBe(journal.entries.length);

    for (const instance of [a, b]) instance.service.child.kill('SIGTERM');
    for (const instance of [a, b]) {
      expect(await waitForExit(instance.service), instance.service.output()).toEqual({
        code: 0,
        signal: null,
      });
    }
  });

  it('recovers from a crashed instance: stops the orphaned PostgreSQL and starts again', async () => {
    const first = await startHealthy();
    const orphan = postmasterPid(first.dataDir);

    first.service.child.kill('SIGKILL');
    expect(await waitForExit(first.service)).toEqual({ code: null, signal: 'SIGKILL' });
    // PostgreSQL runs in its own session: it survives the crash, and server.pid is stale.
    expect(isAlive(orphan)).toBe(true);
    expect(readPidFile(path.join(first.dataDir, 'server.pid'))).toBe(first.service.pid);

    const second = await startHealthy({ dataDir: first.dataDir, port: first.port, pgPort: first.pgPort });

    expect(second.service.stdout()).toContain(
      `stopping PostgreSQL (pid ${orphan}) left running by a previous instance`,
    );
    expect(second.service.stdout()).not.toContain('initialising a new PostgreSQL cluster');
    expect(await waitUntilGone(orphan, 5000)).toBe(true);
    const restarted = postmasterPid(second.dataDir);
    expect(restarted).not.toBe(orphan);
    expect(isAlive(restarted)).toBe(true);
    expect(readPidFile(path.join(second.dataDir, 'server.pid'))).toBe(second.service.pid);
    expect(await getJson(`http://127.0.0.1:${second.port}/health/ready`)).toEqual({
      status: 200,
      body: readyBody,
    });

    second.service.child.kill('SIGTERM');
    expect(await waitForExit(second.service)).toEqual({ code: 0, signal: null });
    expect(isAlive(restarted)).toBe(false);
  });

  it('refuses a second instance on a DATA_DIR that a live instance owns', async () => {
    const first = await startHealthy();
    const second = await start({ dataDir: first.dataDir });
    const exit = await waitForExit(second.service);
    expect(exit, second.service.output()).toEqual({ code: 1, signal: null });
    expect(second.service.stderr()).toContain(
      `is in use by another running instance (pid ${first.service.pid})`,
    );
    // The first instance is untouched.
    expect(readPidFile(path.join(first.dataDir, 'server.pid'))).toBe(first.service.pid);
    expect((await getJson(`http://127.0.0.1:${first.port}/health/ready`)).status).toBe(200);
  });

  it('stops whatever has started when a signal arrives during start-up', async () => {
    const instance = await start();
    const deadline = Date.now() + 45_000;
    while (!instance.service.stdout().includes('embedded PostgreSQL ready') && Date.now() < deadline) {
      if (instance.service.hasExited()) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const postmaster = postmasterPid(instance.dataDir);
    instance.service.child.kill('SIGTERM');
    const exit = await waitForExit(instance.service);
    expect(exit.signal, instance.service.output()).toBeNull();
    expect(await waitUntilGone(postmaster, 5000)).toBe(true);
    expect(existsSync(path.join(instance.dataDir, 'server.pid')), instance.service.output()).toBe(false);
  });

  it('does not signal an unrelated process whose pid is in a stale postmaster.pid', async () => {
    const first = await startHealthy();
    first.service.child.kill('SIGTERM');
    expect((await waitForExit(first.service)).code).toBe(0);

    // After a reboot the recorded pid can belong to anything; here, a process that is not PostgreSQL.
    const bystander = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const pidFile = path.join(first.dataDir, 'postgres', 'postmaster.pid');
      writeFileSync(pidFile, `${bystander.pid}\n${path.join(first.dataDir, 'postgres')}\n`);
      const second = await startHealthy({ dataDir: first.dataDir, port: first.port, pgPort: first.pgPort });
      expect(second.service.stdout()).not.toContain('left running by a previous instance');
      expect(isAlive(bystander.pid as number)).toBe(true);
    } finally {
      bystander.kill('SIGKILL');
    }
  });
});
