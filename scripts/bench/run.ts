import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  apiFor,
  autocannonVersion,
  embeddedDatabaseUrl,
  fastifyVersion,
  hasExited,
  log,
  measure,
  parseSettings,
  type Row,
  ratio,
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

/** The ratio the issue sets for the read path: ≥ 0.8× the floor's req/s, p99 ≤ 1.5× the floor's. */
function videoReadRatio(service: Row, floor: Row): string {
  return (
    `${service.target} / the raw-pg floor: req/s ${ratio(service.reqPerSec, floor.reqPerSec)} (target ≥ 0.80×), ` +
    `p99 latency ${ratio(service.p99, floor.p99)} (target ≤ 1.50×).`
  );
}

/** The same read against the floor of its own plan: one statement, as the service now reads it. */
function oneTripLine(service: Row, oneTrip: Row): string {
  return (
    `${service.target} / ${oneTrip.target}: req/s ${ratio(service.reqPerSec, oneTrip.reqPerSec)}, ` +
    `p99 latency ${ratio(service.p99, oneTrip.p99)} (what the service's own code costs above the database work it plans).`
  );
}

/** Billing's read beside the library's (issue 14): the subscription answer against the video one. */
function billingReadLine(billing: Row, video: Row): string {
  return (
    `${billing.target}: p99 ${billing.p99} ms beside ${video.target} p99 ${video.p99} ms ` +
    `(${ratio(billing.p99, video.p99)}); req/s ${ratio(billing.reqPerSec, video.reqPerSec)} of the video read's.`
  );
}

function section(
  rows: Row[],
  serviceRows: Row[],
  bare: Row,
  videoRows: { service: Row; floor: Row; oneTrip: Row; billing: Row },
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
      '(`RATE_LIMIT_PER_MINUTE` is raised for the run so that it counts without refusing). `GET /videos/{id}` ' +
      "reads one video (a 2 KB transcript) the caller's organization holds: session, then the video with the " +
      "caller's role, the response schema and every hook. `GET /billing/subscription` is the plan, the " +
      "subscription row and the seats in use (members and pending invitations) of the caller's default organization.",
    '- **Raw-pg floor**: `scripts/bench/bare-fastify.ts` with `DATABASE_URL`: the same bare Fastify with the same two queries for ' +
      "`GET /videos/{id}` through raw `pg` (session by token hash; the video left-joined with the caller's " +
      'membership; both prepared) against the same database, answering the row as JSON: no validation, ' +
      'serialiser, hooks, rate limiter or logging. The service reads the session and the video in one statement ' +
      '(`readAlongsideCredential`, src/http/auth.ts), so the table also shows the floor of that plan: ' +
      '`GET /one-trip/videos/{id}`, the same bare route with the session joined to the video and the membership ' +
      'in one prepared statement.',
    `- **Bare Fastify**: \`scripts/bench/bare-fastify.ts\`, Fastify ${fastifyVersion} with defaults, logger ` +
      'off, one `GET /health` route returning a small JSON object.',
    '',
    'req/s is the mean of per-second samples; p50 and p99 are response latencies (autocannon records whole ' +
      'milliseconds); errors include timeouts.',
    '',
    table(rows),
    '',
    ratios(serviceRows, bare),
    videoReadRatio(videoRows.service, videoRows.floor),
    oneTripLine(videoRows.service, videoRows.oneTrip),
    billingReadLine(videoRows.billing, videoRows.service),
    ...(notes.length > 0 ? ['', 'Non-2xx responses and errors:', '', ...notes] : []),
    '',
  ].join('\n');
}

const settings = parseSettings('bench');

await runBenchmark('bench', async ({ dataDir, children }) => {
  const { baseUrl, pgPort } = await startService(dataDir, children);
  const { bareUrl, bareOrigin } = await startBareFastify(children, embeddedDatabaseUrl(dataDir, pgPort));
  const serviceUrl = `${baseUrl}/health`;
  log('both servers answer GET /health');

  const date = new Date();
  const loadBefore = os.loadavg()[0] ?? 0;
  log(`1-minute load average before measuring: ${loadBefore.toFixed(2)}`);
  const { token, organizationId } = await signUp(baseUrl, { email: 'bench@example.com', name: 'Bench' });
  const authorization = { authorization: `Bearer ${token}` };
  const video = await apiFor(baseUrl, token)<{ id: string }>('POST', '/videos', {
    title: 'Weekly sync',
    duration: '30:00',
    organizationId,
    transcript: 'We reviewed the launch checklist and agreed on the rollout order. '.repeat(30),
  });
  const serviceRow = await measure('Service `GET /health`', serviceUrl, settings);
  const sessionRow = await measure(
    'Service `GET /auth/session` (bearer)',
    `${baseUrl}/auth/session`,
    settings,
    authorization,
  );
  const videoRow = await measure(
    'Service `GET /videos/{id}` (bearer)',
    `${baseUrl}/videos/${video.id}`,
    settings,
    authorization,
  );
  const billingRow = await measure(
    'Service `GET /billing/subscription` (bearer)',
    `${baseUrl}/billing/subscription`,
    settings,
    authorization,
  );
  const floorRow = await measure(
    'Raw-pg floor `GET /videos/{id}`',
    `${bareOrigin}/videos/${video.id}`,
    settings,
    authorization,
  );
  const oneTripRow = await measure(
    'Raw-pg floor, one statement `GET /one-trip/videos/{id}`',
    `${bareOrigin}/one-trip/videos/${video.id}`,
    settings,
    authorization,
  );
  const bareRow = await measure('Bare Fastify `GET /health`', bareUrl, settings);
  for (const child of children) {
    if (hasExited(child)) throw new Error(`${child.name} exited during the run:\n${child.output().trim()}`);
  }
  const rows = [serviceRow, sessionRow, videoRow, billingRow, floorRow, oneTripRow, bareRow];
  const serviceRows = [serviceRow, sessionRow];
  const videoRows = { service: videoRow, floor: floorRow, oneTrip: oneTripRow, billing: billingRow };

  process.stdout.write(
    `\n${table(rows)}\n\n${ratios(serviceRows, bareRow)}\n${videoReadRatio(videoRow, floorRow)}\n` +
      `${oneTripLine(videoRow, oneTripRow)}\n${billingReadLine(billingRow, videoRow)}\n`,
  );
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
      section(rows, serviceRows, bareRow, videoRows, settings, date, loadBefore),
    ),
  );
  const shown = path.relative(process.cwd(), settings.output);
  log(`wrote ${shown.startsWith('..') ? settings.output : shown}`);
});
