import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../../test/helpers/ports.ts';

/** What the benchmarks share: child processes, autocannon runs, tables and docs/benchmarks.md sections. */

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BENCHMARKS = {
  title: '# Benchmarks',
  intro:
    'Reproduce with `npm run bench` (about 30 s; options such as `npm run bench -- --duration 5 --connections 20`). ' +
    'Each benchmark owns one `## ` section of this file and rewrites only that section when it runs. ' +
    'The figures come from a single run on the machine named in each section: compare ratios rather than ' +
    'absolute numbers across machines.',
};
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 45_000;

// autocannon ships no type declarations; this is the part of its API the benchmark uses.
type Histogram = { average: number; p50: number; p99: number; total: number };
export type AutocannonResult = {
  requests: Histogram;
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
};
/** What a load sends besides its URL: GET with no body unless a write is measured. */
type LoadRequest = { headers?: Record<string, string>; method?: 'GET' | 'POST'; body?: string };
type AutocannonOptions = LoadRequest & {
  url: string;
  connections: number;
  duration: number;
  pipelining: number;
};
type AutocannonInstance = { stop(): void };
type Autocannon = (
  options: AutocannonOptions,
  done: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;
export const autocannonVersion = (require('autocannon/package.json') as { version: string }).version;
export const fastifyVersion = (require('fastify/package.json') as { version: string }).version;

export type Settings = { duration: number; connections: number; warmup: number; output: string };

export type Row = {
  target: string;
  url: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
};

export type Child = { name: string; process: ChildProcess; exited: Promise<void>; output: () => string };

/** Set by the SIGINT/SIGTERM handler: every wait gives up, the running load stops. */
let interrupted = false;
let running: AutocannonInstance | undefined;

/** Throws once a SIGINT or SIGTERM has come: a loop calls it between steps, so the run stops and cleans up. */
export function stopIfInterrupted() {
  if (interrupted) throw new Error('interrupted');
}

/** A Ctrl-C stops the load and lets the caller's `finally` clean up, once. */
export function stopOnSignals() {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      log(`${signal}: stopping and cleaning up`);
      running?.stop();
    });
  }
}

export function parseSettings(command: string): Settings {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
      warmup: { type: 'string', default: '2' },
      output: { type: 'string', default: path.join(ROOT, 'docs', 'benchmarks.md') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      `Usage: npm run ${command} -- [--duration <s>=10] [--connections <n>=50] [--warmup <s>=2] [--output <file>]\n`,
    );
    process.exit(0);
  }
  const number = (name: string, raw: string, { integer = false, allowZero = false } = {}) => {
    const value = Number(raw);
    const ok = Number.isFinite(value) && (allowZero ? value >= 0 : value > 0);
    if (!ok || (integer && !Number.isInteger(value))) {
      throw new Error(`--${name} must be a ${integer ? 'whole' : ''} number${allowZero ? '' : ' above 0'}`);
    }
    return value;
  };
  return {
    duration: number('duration', values.duration),
    connections: number('connections', values.connections, { integer: true }),
    warmup: number('warmup', values.warmup, { allowZero: true }),
    output: path.resolve(values.output),
  };
}

const started = Date.now();

export function log(message: string) {
  process.stderr.write(`bench [${((Date.now() - started) / 1000).toFixed(1)} s]: ${message}\n`);
}

export function startChild(name: string, script: string, env: NodeJS.ProcessEnv): Child {
  // Own process group: a Ctrl-C in the terminal reaches only this script, which then stops each child once.
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      keep(Buffer.from(`\n${error.message}\n`));
      resolve();
    });
  });
  return { name, process: child, exited, output: () => output };
}

export function hasExited(child: Child) {
  return (
    child.process.exitCode !== null || child.process.signalCode !== null || child.process.pid === undefined
  );
}

export async function waitForHealth(child: Child, url: string) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    stopIfInterrupted();
    if (hasExited(child)) {
      throw new Error(`${child.name} exited before it was ready. Its last output:\n${child.output().trim()}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(200);
  }
  throw new Error(`${child.name} did not answer 200 on ${url} within ${READY_TIMEOUT_MS / 1000} s`);
}

export async function stopChild(child: Child) {
  if (hasExited(child)) return;
  child.process.kill('SIGTERM');
  // A cancellable timer: a pending one would keep the bench process alive after its work is done.
  const timer = new AbortController();
  const outcome = await Promise.race([
    child.exited.then(() => 'exited' as const),
    sleep(STOP_TIMEOUT_MS, 'timeout' as const, { signal: timer.signal }).catch(() => 'exited' as const),
  ]);
  timer.abort();
  if (outcome !== 'exited') {
    log(`${child.name} did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM; killing it`);
    child.process.kill('SIGKILL');
    await child.exited;
  }
}

/** If the service died without stopping its embedded cluster (it runs in its own session), stop it here. */
export async function stopLeftoverPostgres(dataDir: string) {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8'), 10);
  } catch {
    return;
  }
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!Number.isInteger(pid) || pid <= 0 || !alive()) return;
  log(`stopping embedded PostgreSQL (pid ${pid}) left running by the service`);
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + 15_000;
  while (alive() && Date.now() < deadline) await sleep(100);
  if (alive()) process.kill(pid, 'SIGKILL');
}

function load(
  url: string,
  connections: number,
  duration: number,
  request: LoadRequest,
): Promise<AutocannonResult> {
  return new Promise((resolve, reject) => {
    running = autocannon({ url, connections, duration, pipelining: 1, ...request }, (error, result) => {
      running = undefined;
      if (error) reject(error);
      else if (interrupted) reject(new Error('interrupted'));
      else resolve(result);
    });
  });
}

/** One target under load for `settings.duration` s after an unrecorded warm-up; `write` POSTs a body instead of a GET. */
export async function measure(
  target: string,
  url: string,
  settings: Settings,
  headers: Record<string, string> = {},
  write?: { method: 'POST'; body: string },
): Promise<Row> {
  const request = { headers, ...write };
  if (settings.warmup > 0) {
    log(`${target}: warm-up ${settings.warmup} s (not recorded)`);
    await load(url, settings.connections, settings.warmup, request);
  }
  log(`${target}: ${settings.connections} connections for ${settings.duration} s`);
  const result = await load(url, settings.connections, settings.duration, request);
  return {
    target,
    url,
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]),
    ),
  };
}

export const integer = (value: number) => Math.round(value).toLocaleString('en-US');
export const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');

export function table(rows: Row[]): string {
  const lines = [
    '| Target | req/s | p50 ms | p99 ms | requests | non-2xx | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.target} | ${integer(row.reqPerSec)} | ${row.p50} | ${row.p99} | ${integer(row.requests)} | ` +
        `${row.non2xx} | ${row.errors} |`,
    ),
  ];
  return lines.join('\n');
}

export function ratios(serviceRows: Row[], bare: Row): string {
  return serviceRows
    .map(
      (row) =>
        `${row.target} / bare Fastify: req/s ${ratio(row.reqPerSec, bare.reqPerSec)}, ` +
        `p99 latency ${ratio(row.p99, bare.p99)}.`,
    )
    .join('\n');
}

/** Replaces this benchmark's section (its heading up to the next `## ` heading) and keeps the rest. */
/** The evaluations' report, docs/ai-quality.md: each evaluation owns one `## ` section of it. */
export const AI_QUALITY = {
  title: '# AI quality',
  intro:
    'How well the AI features answer, measured on real meetings (QMSum, MIT licence; not shipped: point the ' +
    'scripts at a copy with `--dir`). Each evaluation owns one `## ` section and rewrites only it.',
};

export function upsertSection(
  current: string | undefined,
  heading: string,
  text: string,
  { title, intro }: { title: string; intro: string } = BENCHMARKS,
): string {
  if (!current?.trim()) return `${title}\n\n${intro}\n\n${text}`;
  const base = current.startsWith(`${title}\n`) ? current : `${title}\n\n${intro}\n\n${current}`;
  const lines = base.split('\n');
  let start = -1;
  let end = lines.length;
  let fenced = false;
  for (const [index, line] of lines.entries()) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    if (start < 0 && line.trim() === heading) start = index;
    else if (start >= 0 && line.startsWith('## ')) {
      end = index;
      break;
    }
  }
  const body = text.trimEnd().split('\n');
  if (start < 0) return `${base.trimEnd()}\n\n${body.join('\n')}\n`;
  const tail = lines.slice(end);
  return [...lines.slice(0, start), ...body, '', ...tail].join('\n');
}

export function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Runs a benchmark with a temporary DATA_DIR: whatever happens (success, failure, Ctrl-C), the
 * children it started are stopped, any PostgreSQL left in the directory is stopped, and the
 * directory is removed. A failure is reported on stderr with a non-zero exit code.
 */
export async function runBenchmark(
  command: string,
  body: (scratch: { dataDir: string; children: Child[] }) => Promise<void>,
) {
  stopOnSignals();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `kh-${command.replace(':', '-')}-`));
  // As root the embedded cluster runs as the `postgres` user, which must be able to enter the directory.
  chmodSync(dataDir, 0o755);
  const children: Child[] = [];
  try {
    await body({ dataDir, children });
  } catch (error) {
    // Drizzle's errors name the query; the database's own message is their cause.
    const cause = (error as Error).cause;
    process.stderr.write(
      `${command} failed: ${(error as Error).message}\n${cause instanceof Error ? `${cause.message}\n` : ''}`,
    );
    process.exitCode = 1;
  } finally {
    if (children.length > 0) log('stopping the servers');
    await Promise.all(children.map(stopChild));
    await stopLeftoverPostgres(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
    log('stopped; temporary DATA_DIR removed');
  }
}

export type Api = <T>(method: string, url: string, body?: unknown) => Promise<T>;

/** JSON requests to the service under test, as `token`'s bearer; anything but 2xx throws with the body. */
export function apiFor(baseUrl: string, token?: string): Api {
  return async <T>(method: string, url: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${url}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 300)
      throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
}

/**
 * The service as `npm start` runs it, on its own embedded PostgreSQL in `dataDir`, on free ports
 * and with the rate limit out of the way; returns once it is healthy. `env` adds or overrides
 * settings. The child joins `children`, so runBenchmark stops it whatever happens.
 */
export async function startService(dataDir: string, children: Child[], env: NodeJS.ProcessEnv = {}) {
  const [port, pgPort] = [await freePort(), await freePort()];
  const { DATABASE_URL: _externalDatabase, ...inherited } = process.env;
  log(`starting the service on port ${port} (embedded PostgreSQL on ${pgPort}, DATA_DIR ${dataDir})`);
  const service = startChild('the service', 'src/server.ts', {
    ...inherited,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(pgPort),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    ...env,
  });
  children.push(service);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHealth(service, `${baseUrl}/health`);
  return { service, baseUrl, pgPort };
}

/** Signs a user up through the API: their id, their organization and a session token. */
export async function signUp(baseUrl: string, user: { email: string; name: string }) {
  const body = await apiFor(baseUrl)<{
    data: { user: { id: string; defaultOrganizationId: string }; session: { sessionId: string } };
  }>('POST', '/auth/sign-up', { ...user, password: 'benchmark-password' });
  return {
    userId: body.data.user.id,
    organizationId: body.data.user.defaultOrganizationId,
    token: body.data.session.sessionId,
  };
}

/** The URL of the embedded database `startService` started in `dataDir` (its password lives there). */
export function embeddedDatabaseUrl(dataDir: string, pgPort: number) {
  const password = readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/knowledge_hub`;
}

/**
 * A bare Fastify on a free port, the floor the service is measured against: `GET /health`, and
 * with `databaseUrl` the raw-pg `GET /videos/:id` (`bareOrigin` is for that one).
 */
export async function startBareFastify(children: Child[], databaseUrl?: string) {
  const port = await freePort();
  const { DATABASE_URL: _externalDatabase, ...inherited } = process.env;
  log(`starting bare Fastify on port ${port}`);
  const bare = startChild('bare Fastify', 'scripts/bench/bare-fastify.ts', {
    ...inherited,
    PORT: String(port),
    HOST: '127.0.0.1',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  children.push(bare);
  const bareOrigin = `http://127.0.0.1:${port}`;
  const bareUrl = `${bareOrigin}/health`;
  await waitForHealth(bare, bareUrl);
  return { bareUrl, bareOrigin };
}
