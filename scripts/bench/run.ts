import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  autocannonVersion,
  fastifyVersion,
  hasExited,
  log,
  measure,
  parseSettings,
  type Row,
  ratios,
  readIfExists,
  runBenchmark,
  type Settings,
  signUp,
  startBareFastify,
  startService,
  table,
  upsertSection,
} from './lib.ts';

/**
 * `npm run bench`: the HTTP floor. Starts the real service (`src/server.ts`, fresh embedded
 * PostgreSQL, request logging off) and a bare Fastify server as child processes, loads
 * `GET /health` on each in turn with autocannon, prints the table and rewrites its own section
 * of docs/benchmarks.md. Both children and the temporary data directory are removed at the end,
 * also when something fails or the run is interrupted.
 *
 *   npm run bench -- --duration 5 --connections 20 --warmup 1 --output /tmp/bench.md
 */

const SECTION_HEADING = '## HTTP floor: GET /health and an authenticated read vs bare Fastify';

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

const settings = parseSettings('bench');

await runBenchmark('bench', async ({ dataDir, children }) => {
  const { baseUrl } = await startService(dataDir, children);
  const { bareUrl } = await startBareFastify(children);
  const serviceUrl = `${baseUrl}/health`;
  log('both servers answer GET /health');

  const date = new Date();
  const loadBefore = os.loadavg()[0] ?? 0;
  log(`1-minute load average before measuring: ${loadBefore.toFixed(2)}`);
  const { token } = await signUp(baseUrl, { email: 'bench@example.com', name: 'Bench' });
  const serviceRow = await measure('Service `GET /health`', serviceUrl, settings);
  const sessionRow = await measure(
    'Service `GET /auth/session` (bearer)',
    `${baseUrl}/auth/session`,
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
      SECTION_HEADING,
      section(rows, serviceRows, bareRow, settings, date, loadBefore),
    ),
  );
  const shown = path.relative(process.cwd(), settings.output);
  log(`wrote ${shown.startsWith('..') ? settings.output : shown}`);
});
