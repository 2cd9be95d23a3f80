import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../../test/helpers/ports.ts';

/**
 * `npm run bench`: the HTTP floor. Starts the real service (`src/server.ts`, fresh embedded
 * PostgreSQL, request logging off) and a bare Fastify server as child processes, loads
 * `GET /health` on each in turn with autocannon, prints the table and rewrites its own section
 * of docs/benchmarks.md. Both children and the temporary data directory are removed at the end,
 * also when something fails or the run is interrupted.
 *
 *   npm run bench -- --duration 5 --connections 20 --warmup 1 --output /tmp/bench.md
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SECTION_HEADING = '## HTTP floor: GET /health and an authenticated read vs bare Fastify';
const TITLE = '# Benchmarks';
const INTRO =
  'Reproduce with `npm run bench` (about 30 s; options such as `npm run bench -- --duration 5 --connections 20`). ' +
  'Each benchmark owns one `## ` section of this file and rewrites only that section when it runs. ' +
  'The figures come from a single run on the machine named in each section: compare ratios rather than ' +
  'absolute numbers across machines.';
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 45_000;

// autocannon ships no type declarations; this is the part of its API the benchmark uses.
type Histogram = { average: number; p50: number; p99: number; total: number };
type AutocannonResult = {
  requests: Histogram;
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
};
type AutocannonOptions = {
  url: string;
  connections: number;
  duration: number;
  pipelining: number;
  headers?: Record<string, string>;
};
type AutocannonInstance = { stop(): void };
type Autocannon = (
  options: AutocannonOptions,
  done: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;
const autocannonVersion = (require('autocannon/package.json') as { version: string }).version;
const fastifyVersion = (require('fastify/package.json') as { version: string }).version;

type Settings = { duration: number; connections: number; warmup: number; output: string };

type Row = {
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

type Child = { name: string; process: ChildProcess; exited: Promise<void>; output: () => string };

let interrupted = false;
let running: AutocannonInstance | undefined;

function parseSettings(): Settings {
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
      'Usage: npm run bench -- [--duration <s>=10] [--connections <n>=50] [--warmup <s>=2] [--output <file>]\n',
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

function log(message: string) {
  process.stderr.write(`bench [${((Date.now() - started) / 1000).toFixed(1)} s]: ${message}\n`);
}

function startChild(name: string, script: string, env: NodeJS.ProcessEnv): Child {
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

function hasExited(child: Child) {
  return (
    child.process.exitCode !== null || child.process.signalCode !== null || child.process.pid === undefined
  );
}

async function waitForHealth(child: Child, url: string) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (interrupted) throw new Error('interrupted');
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

async function stopChild(child: Child) {
  if (hasExited(child)) return;
  child.process.kill('SIGTERM');
  const outcome = await Promise.race([child.exited.then(() => 'exited' as const), sleep(STOP_TIMEOUT_MS)]);
  if (outcome !== 'exited') {
    log(`${child.name} did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM; killing it`);
    child.process.kill('SIGKILL');
    await child.exited;
  }
}

/** If the service died without stopping its embedded cluster (it runs in its own session), stop it here. */
async function stopLeftoverPostgres(dataDir: string) {
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
  headers: Record<string, string> = {},
): Promise<AutocannonResult> {
  return new Promise((resolve, reject) => {
    running = autocannon({ url, connections, duration, pipelining: 1, headers }, (error, result) => {
      running = undefined;
      if (error) reject(error);
      else if (interrupted) reject(new Error('interrupted'));
      else resolve(result);
    });
  });
}

async function measure(
  target: string,
  url: string,
  settings: Settings,
  headers: Record<string, string> = {},
): Promise<Row> {
  if (settings.warmup > 0) {
    log(`${target}: warm-up ${settings.warmup} s (not recorded)`);
    await load(url, settings.connections, settings.warmup, headers);
  }
  log(`${target}: ${settings.connections} connections for ${settings.duration} s`);
  const result = await load(url, settings.connections, settings.duration, headers);
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

const integer = (value: number) => Math.round(value).toLocaleString('en-US');
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');

function table(rows: Row[]): string {
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

function ratios(serviceRows: Row[], bare: Row): string {
  return serviceRows
    .map(
      (row) =>
        `${row.target} / bare Fastify: req/s ${ratio(row.reqPerSec, bare.reqPerSec)}, ` +
        `p99 latency ${ratio(row.p99, bare.p99)}.`,
    )
    .join('\n');
}

/** Signs up a user on the service and returns its session token, for the authenticated target. */
async function signUp(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'benchmark-password', name: 'Bench' }),
  });
  if (response.status !== 201) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: { session: { sessionId: string } } }).data.session.sessionId;
}

function section(
  rows: Row[],
  serviceRows: Row[],
  bare: Row,
  settings: Settings,
  date: Date,
  loadBefore: number,
): string {
  const cpus = os.cpus();
  const memoryGiB = (os.totalmem() / 1024 ** 3).toFixed(1);
  const notes = rows
    .filter((row) => row.non2xx > 0 || row.errors > 0)
    .map(
      (row) =>
        `- ${row.target}: status codes ${JSON.stringify(row.statusCodes)}, ${row.errors} errors ` +
        `(${row.timeouts} timeouts).`,
    );
  return [
    SECTION_HEADING,
    '',
    `Measured ${date.toISOString()} on ${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length} CPUs, ` +
      `${memoryGiB} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}; 1-minute load average ` +
      `${loadBefore.toFixed(2)} just before the first measurement.`,
    '',
    `Method: autocannon ${autocannonVersion} (programmatic API), ${settings.connections} connections, ` +
      `pipelining 1, ${settings.duration} s per target, one target after the other in the same run, ` +
      (settings.warmup > 0
        ? `each preceded by an unrecorded ${settings.warmup} s warm-up`
        : 'without warm-up') +
      '. Load generator and servers share the machine.',
    '',
    '- **Service**: `src/server.ts` started as in production (child process, fresh embedded ' +
      'PostgreSQL in a temporary `DATA_DIR`) with `LOG_LEVEL=warn`, so request logging is off. `GET /health` ' +
      'skips the rate limiter and touches no database; the difference to the bare server is the request ' +
      'pipeline every route pays: request id, security headers, CORS, cookies, metrics and Zod response ' +
      'serialisation. `GET /auth/session` with a bearer token is the simplest authenticated read: it adds the ' +
      'session lookup (one indexed query) and the rate limiter, whose counter lives in PostgreSQL ' +
      '(`RATE_LIMIT_PER_MINUTE` is raised for the run so that it counts without refusing).',
    `- **Bare Fastify**: \`scripts/bench/bare-fastify.ts\`, Fastify ${fastifyVersion} with defaults, logger ` +
      'off, one `GET /health` route returning a small JSON object.',
    '',
    'req/s is the mean of per-second samples; p50 and p99 are response latencies (autocannon records whole ' +
      'milliseconds); errors include timeouts.',
    '',
    table(rows),
    '',
    ratios(serviceRows, bare),
    ...(notes.length > 0 ? ['', 'Non-2xx responses and errors:', '', ...notes] : []),
    '',
  ].join('\n');
}

/** Replaces this benchmark's section (its heading up to the next `## ` heading) and keeps the rest. */
function upsertSection(current: string | undefined, text: string): string {
  if (!current?.trim()) return `${TITLE}\n\n${INTRO}\n\n${text}`;
  const base = current.startsWith(`${TITLE}\n`) ? current : `${TITLE}\n\n${INTRO}\n\n${current}`;
  const lines = base.split('\n');
  let start = -1;
  let end = lines.length;
  let fenced = false;
  for (const [index, line] of lines.entries()) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    if (start < 0 && line.trim() === SECTION_HEADING) start = index;
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

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function main() {
  const settings = parseSettings();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      log(`${signal}: stopping and cleaning up`);
      running?.stop();
    });
  }

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kh-bench-'));
  // As root the embedded cluster runs as the `postgres` user, which must be able to enter the directory.
  chmodSync(dataDir, 0o755);
  const children: Child[] = [];
  try {
    const [servicePort, pgPort, barePort] = [await freePort(), await freePort(), await freePort()];
    const { DATABASE_URL: _externalDatabase, ...inherited } = process.env;

    log(
      `starting the service on port ${servicePort} (embedded PostgreSQL on ${pgPort}, DATA_DIR ${dataDir})`,
    );
    const service = startChild('the service', 'src/server.ts', {
      ...inherited,
      PORT: String(servicePort),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000000',
    });
    children.push(service);
    log(`starting bare Fastify on port ${barePort}`);
    const bare = startChild('bare Fastify', 'scripts/bench/bare-fastify.ts', {
      ...inherited,
      PORT: String(barePort),
      HOST: '127.0.0.1',
    });
    children.push(bare);

    const serviceUrl = `http://127.0.0.1:${servicePort}/health`;
    const bareUrl = `http://127.0.0.1:${barePort}/health`;
    await Promise.all([waitForHealth(service, serviceUrl), waitForHealth(bare, bareUrl)]);
    log('both servers answer GET /health');

    const date = new Date();
    const loadBefore = os.loadavg()[0] ?? 0;
    log(`1-minute load average before measuring: ${loadBefore.toFixed(2)}`);
    const token = await signUp(`http://127.0.0.1:${servicePort}`);
    const serviceRow = await measure('Service `GET /health`', serviceUrl, settings);
    const sessionRow = await measure(
      'Service `GET /auth/session` (bearer)',
      `http://127.0.0.1:${servicePort}/auth/session`,
      settings,
      { authorization: `Bearer ${token}` },
    );
    const bareRow = await measure('Bare Fastify `GET /health`', bareUrl, settings);
    for (const child of children) {
      if (hasExited(child)) throw new Error(`${child.name} exited during the run:\n${child.output().trim()}`);
    }
    const rows = [serviceRow, sessionRow, bareRow];
    const serviceRows = [serviceRow, sessionRow];

    process.stdout.write(`\n${table(rows)}\n\n${ratios(serviceRows, bareRow)}\n`);
    for (const row of rows) {
      if (row.non2xx > 0 || row.errors > 0) {
        process.stdout.write(
          `${row.target}: status codes ${JSON.stringify(row.statusCodes)}, ${row.errors} errors (${row.timeouts} timeouts)\n`,
        );
      }
    }

    writeFileSync(
      settings.output,
      upsertSection(
        readIfExists(settings.output),
        section(rows, serviceRows, bareRow, settings, date, loadBefore),
      ),
    );
    const shown = path.relative(process.cwd(), settings.output);
    log(`wrote ${shown.startsWith('..') ? settings.output : shown}`);
  } finally {
    if (children.length > 0) log('stopping both servers');
    await Promise.all(children.map(stopChild));
    await stopLeftoverPostgres(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
    log('stopped; temporary DATA_DIR removed');
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
