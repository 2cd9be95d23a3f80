import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  apiFor,
  autocannonVersion,
  embeddedDatabaseUrl,
  hasExited,
  integer,
  log,
  measure,
  ROOT,
  type Row,
  ratio,
  readIfExists,
  runBenchmark,
  signUp,
  startService,
  stopIfInterrupted,
  table,
  upsertSection,
} from './lib.ts';

/**
 * `npm run bench:integrations`: what outgoing webhooks cost. The service (WEBHOOKS_ALLOW_PRIVATE)
 * delivers to a node:http receiver in this process that answers 200 at once. (1) autocannon on
 * `POST /videos/{id}/comments` in organizations with no, 1 and 5 webhooks on comment.created;
 * (2) `--count` comments, `--concurrency` at a time, each timed from its 201 to its delivery,
 * beside the same bodies POSTed straight to the receiver, then single comments with the worker
 * idle; (3) every delivery arrived exactly once. Rewrites `## Webhook deliveries` of docs/benchmarks.md.
 *
 *   npm run bench:integrations -- --duration 5 --count 200 --output /tmp/bench.md
 */

const SECTION_HEADING = '## Webhook deliveries';
const IDLE_EVENTS = 8;
const DRAIN_TIMEOUT_MS = 120_000;

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '2' },
    count: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '10' },
    output: { type: 'string', default: path.join(ROOT, 'docs', 'benchmarks.md') },
  },
});
const number = (name: Exclude<keyof typeof values, 'output'>, min: number) => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be a whole number ≥ ${min}`);
  return value;
};
const duration = number('duration', 1);
const connections = number('connections', 1);
const warmup = number('warmup', 0);
const count = number('count', 10);
const concurrency = number('concurrency', 1);
const output = path.resolve(values.output);

const settings = { duration, connections, warmup, output };

/** `POST /videos/{id}/comments` under load, as `token`: each comment announces an event to every webhook. */
const measureComments = (target: string, url: string, token: string, run = settings) =>
  measure(
    target,
    url,
    run,
    { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    {
      method: 'POST',
      body: JSON.stringify({ body: 'Benchmark comment: the rollout order looks right to me.' }),
    },
  );

type Arrival = { route: string; eventId: string; objectId: string; at: number; body: string };

/** The receiver: records each POST (path, event id, `data.id`, arrival time), answers 200 at once. */
async function startReceiver() {
  const arrivals: Arrival[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const event = JSON.parse(body) as { id: string; data: { id: string } };
      arrivals.push({ route: request.url ?? '', eventId: event.id, objectId: event.data.id, at, body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections());
  return { origin, arrivals, close };
}

/** The floor's client: one POST through node:http and its default agent, as the service's sender. */
const postRaw = (url: string, body: string) =>
  new Promise<void>((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const request = http.request(url, { method: 'POST', headers }, (response) =>
      response.resume().on('end', resolve),
    );
    request.on('error', reject).end(body);
  });

/** Runs `task(index)` for 0…total-1, `concurrency` at once. */
async function inParallel(total: number, task: (index: number) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < total) {
      stopIfInterrupted();
      await task(next++);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const sorted = (samples: number[]) => [...samples].sort((x, y) => x - y);
const percentile = (samples: number[], p: number) =>
  samples[Math.min(samples.length - 1, Math.ceil((p / 100) * samples.length) - 1)] ?? 0;
function timing(label: string, samples: number[], total?: number) {
  const [s, ms] = [sorted(samples), (value: number) => value.toFixed(1)];
  const all =
    total === undefined ? '| |' : `| ${(total / 1000).toFixed(2)} | ${integer((s.length * 1000) / total)} |`;
  return `| ${label} | ${[50, 95, 99, 100].map((p) => ms(percentile(s, p))).join(' | ')} ${all}`;
}

await runBenchmark('bench:integrations', async ({ dataDir, children }) => {
  const receiver = await startReceiver();
  let db: pg.Pool | undefined;
  try {
    const { baseUrl, pgPort } = await startService(dataDir, children, { WEBHOOKS_ALLOW_PRIVATE: 'true' });
    const pool = new pg.Pool({ connectionString: embeddedDatabaseUrl(dataDir, pgPort), max: 1 });
    db = pool;
    const scalar = async (query: string, params: unknown[] = []) =>
      Number((await pool.query<{ n: string }>(query, params)).rows[0]?.n ?? 0);
    const pending = () => scalar(`SELECT count(*) AS n FROM integration_deliveries WHERE status = 'pending'`);
    const wakeUps = `SELECT count(*) AS n FROM pgboss.job WHERE name = 'integration-deliveries' AND state = 'created'`;
    /** Waits until the outbox is empty; the seconds it took. */
    const drain = async () => {
      const started = performance.now();
      while ((await pending()) > 0) {
        stopIfInterrupted();
        if (performance.now() - started > DRAIN_TIMEOUT_MS) throw new Error('deliveries pending after 120 s');
        await sleep(100);
      }
      return (performance.now() - started) / 1000;
    };

    /** An organization (its own sign-up) with one video and `webhooks` webhooks on comment.created. */
    const organization = async (name: string, webhooks: number, label: string) => {
      const { token, organizationId } = await signUp(baseUrl, { email: `${name}@example.com`, name });
      const api = apiFor(baseUrl, token);
      const transcript = 'We reviewed the launch checklist and agreed on the rollout order.';
      const body = { title: name, duration: '30:00', organizationId, transcript };
      const video = await api<{ id: string }>('POST', '/videos', body);
      const routes = Array.from({ length: webhooks }, (_, index) => `/${name}/${index}`);
      for (const route of routes) {
        const url = `${receiver.origin}${route}`;
        await api('POST', '/integrations/webhooks', { organizationId, url, events: ['comment.created'] });
      }
      const comment = () =>
        api<{ id: string }>('POST', `/videos/${video.id}/comments`, { body: 'Benchmark comment.' });
      return { token, organizationId, videoId: video.id, routes, comment, label };
    };
    const none = await organization('none', 0, 'no webhook');
    const one = await organization('one', 1, '1 webhook');
    const five = await organization('five', 5, '5 webhooks');
    const timed = await organization('timed', 1, '');

    const date = new Date();
    const loadBefore = os.loadavg()[0] ?? 0;
    const runs: { org: typeof none; row: Row }[] = [];
    const backlog: string[] = [];
    // Warm the service up, then measure in the order A B C C B A, so that a drift of the shared
    // machine during the run weighs the same on each configuration's mean.
    if (warmup > 0)
      await measureComments(
        'Warm-up (not recorded)',
        `${baseUrl}/videos/${none.videoId}/comments`,
        none.token,
        {
          ...settings,
          duration: 3 * warmup,
          warmup: 0,
        },
      );
    for (const org of [none, one, five, five, one, none]) {
      const label = `${org.label}, run ${runs.filter((run) => run.org === org).length + 1}`;
      const url = `${baseUrl}/videos/${org.videoId}/comments`;
      runs.push({
        org,
        row: await measureComments(`\`POST /videos/{id}/comments\`, ${label}`, url, org.token),
      });
      if (org.routes.length === 0) continue;
      const left = await pending();
      const took = await drain();
      backlog.push(
        `${label}: ${integer(left)} deliveries still in the outbox when the load stopped, sent in the next ` +
          `${took.toFixed(1)} s (${integer(left / took)} a second)`,
      );
    }

    log(`${count} comments, ${concurrency} at a time, each timed to its delivery`);
    const acked = new Map<string, number>();
    const startedAt = performance.now();
    await inParallel(count, async () => {
      const { id } = await timed.comment();
      acked.set(id, performance.now());
    });
    const lastAck = Math.max(...acked.values());
    await drain();
    const route = timed.routes[0] as string;
    const mine = receiver.arrivals.filter(
      (arrival) => arrival.route === route && acked.has(arrival.objectId),
    );
    const delivery = mine.map((arrival) => arrival.at - (acked.get(arrival.objectId) as number));
    const times = sorted(mine.map((arrival) => arrival.at));
    const lastDelivery = times.at(-1) ?? 0;
    const [firstDelivery, firstAck] = [times[0] ?? 0, Math.min(...acked.values())];

    log(`floor: the same ${mine.length} bodies POSTed straight to the receiver`);
    const sent = new Map<string, number>();
    const floorStarted = performance.now();
    await inParallel(mine.length, async (index) => {
      const arrival = mine[index] as Arrival;
      sent.set(arrival.objectId, performance.now());
      await postRaw(`${receiver.origin}/floor`, arrival.body);
    });
    const floorArrivals = receiver.arrivals.filter((arrival) => arrival.route === '/floor');
    const floor = floorArrivals.map((arrival) => arrival.at - (sent.get(arrival.objectId) as number));
    const floorTotal = Math.max(...floorArrivals.map((arrival) => arrival.at)) - floorStarted;

    log(`${IDLE_EVENTS} single comments, each after a random 0–2 s pause`);
    const idle: number[] = [];
    for (let index = 0; index < IDLE_EVENTS; index++) {
      await sleep(Math.random() * 2000);
      const { id } = await timed.comment();
      const at = performance.now();
      for (;;) {
        stopIfInterrupted();
        const arrival = receiver.arrivals.find((a) => a.route === route && a.objectId === id);
        if (arrival) {
          idle.push(arrival.at - at);
          break;
        }
        if (performance.now() - at > 70_000) throw new Error('a single delivery took over 70 s');
        await sleep(5);
      }
    }
    await drain();
    const queuedAtEnd = await scalar(wakeUps);

    // Exactly once: each comment of each video reached each of its webhooks once; nothing else came.
    const problems: string[] = [];
    for (const org of [one, five, timed]) {
      const sql = 'SELECT id FROM comments WHERE video_id = $1';
      const expected = new Set(
        (await pool.query<{ id: string }>(sql, [org.videoId])).rows.map((row) => row.id),
      );
      for (const webhook of org.routes) {
        const got = receiver.arrivals.filter((arrival) => arrival.route === webhook);
        const events = new Set(got.map((arrival) => arrival.eventId));
        const objects = new Set(got.map((arrival) => arrival.objectId));
        const missing = [...expected].filter((id) => !objects.has(id)).length;
        const duplicates = got.length - events.size + Math.abs(events.size - objects.size);
        const extra = [...objects].filter((id) => !expected.has(id)).length;
        if (missing + duplicates + extra > 0)
          problems.push(`${webhook}: ${missing} missing, ${duplicates} twice, ${extra} extra`);
      }
    }
    const checked = receiver.arrivals.filter((arrival) => arrival.route !== '/floor').length;
    const retried = await scalar('SELECT count(*) AS n FROM integration_deliveries WHERE attempts <> 1');
    if (retried > 0) problems.push(`${retried} deliveries needed more than one attempt`);
    for (const child of children) {
      if (hasExited(child)) throw new Error(`${child.name} exited during the run:\n${child.output().trim()}`);
    }

    /** A configuration's req/s, p50 and p99, each the mean of its two runs. */
    const mean = (org: typeof none) => {
      const rows = runs.filter((run) => run.org === org).map((run) => run.row);
      const of = (pick: (row: Row) => number) => rows.reduce((sum, row) => sum + pick(row), 0) / rows.length;
      return [of((row) => row.reqPerSec), of((row) => row.p50), of((row) => row.p99)] as const;
    };
    const versus = (org: typeof none) => {
      const [[reqs, p50, p99], [baseReqs, baseP50, baseP99]] = [mean(org), mean(none)];
      return (
        `${org.label} / no webhook, means of their two runs: req/s ${ratio(reqs, baseReqs)}, ` +
        `p50 ${ratio(p50, baseP50)}, p99 ${ratio(p99, baseP99)}.`
      );
    };
    const cpus = os.cpus();
    const text = [
      SECTION_HEADING,
      '',
      `Reproduce with \`npm run bench:integrations\`. Measured ${date.toISOString()} on ` +
        `${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length} CPUs, Node ${process.version}; 1-minute load ` +
        `average ${loadBefore.toFixed(2)} before the first measurement.`,
      '',
      'Method: the service (`WEBHOOKS_ALLOW_PRIVATE=true`) delivers to a `node:http` receiver in the benchmark ' +
        `process that answers 200 at once. **Writes**: autocannon ${autocannonVersion}, ${connections} connections, ` +
        `${duration} s after a ${warmup} s warm-up (${3 * warmup} s before the first), ` +
        '`POST /videos/{id}/comments` (`comment.created`) in an organization without webhooks, one with 1 and ' +
        'one with 5, in the order A B C C B A (a drift of the machine weighs the same on each pair); the outbox ' +
        `is drained before the next target. **Latency**: ${count} comments, ${concurrency} at a time, each timed ` +
        'from its 201 to its delivery at the receiver (matched by `data.id`); the floor POSTs the same bodies ' +
        `from the benchmark process to the receiver with \`node:http\`, ${concurrency} at a time. Then ` +
        `${IDLE_EVENTS} single comments, each after a random 0–2 s pause.`,
      '',
      table(runs.map((run) => run.row)),
      '',
      versus(one),
      versus(five),
      '',
      ...backlog.map((line) => `- ${line}.`),
      '',
      '| Delivery | p50 ms | p95 ms | p99 ms | max ms | all in s | per s |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      timing(
        `201 → received, ${count} comments (${concurrency} at a time)`,
        delivery,
        lastDelivery - startedAt,
      ),
      timing('Floor: `node:http` POST → received, the same bodies', floor, floorTotal),
      timing(`201 → received, ${IDLE_EVENTS} single comments`, idle),
      '',
      `The ${count} comments took ${seconds(lastAck - startedAt)} s to create. The first delivery arrived ` +
        `${seconds(firstDelivery - firstAck)} s after the first 201, the last ${seconds(lastDelivery - lastAck)} s ` +
        `after the last: ${integer((mine.length * 1000) / (lastDelivery - firstDelivery))} a second once under way.`,
      '',
      problems.length === 0
        ? `Exactly once: all ${integer(checked)} deliveries arrived, each once (by event id per webhook), none ` +
          'missing or unexpected, each at its first attempt.'
        : `Exactly once **failed**: ${problems.join('; ')}.`,
      '',
      '### Notes: webhook deliveries',
      '',
      'Each mapped mutation runs one more statement in its transaction, an `INSERT … SELECT` that inserts ' +
        'nothing without a subscriber, and otherwise a row per subscribed webhook and a `pg_notify`: a ' +
        "transaction that notifies takes PostgreSQL's notify-queue lock at commit and holds it through its WAL " +
        'flush, so such commits queue one behind the other. The write ratios above also hold the deliveries ' +
        'themselves: the same process (2 cores) sends them while the writes run, so with webhooks a share of ' +
        'the CPU goes to signing and posting; what the load leaves undelivered waits in the outbox (the backlog ' +
        "lines) and goes out once it stops. Compare the two no-webhook runs for the machine's drift. " +
        `Delivery latency (p50 ${percentile(sorted(delivery), 50).toFixed(0)} ms against the floor's ` +
        `${percentile(sorted(floor), 50).toFixed(1)} ms) is the wake-up path, not HTTP: the commit's NOTIFY ` +
        'reaches wake.ts, which queues a sweep (coalescing 50 ms of events); the queue notifies its worker as ' +
        'the job is created (pg-boss `useListenNotify`), and the sweep claims due deliveries and sends them 10 ' +
        'at a time. The sweep queue is `stately` (one waiting, one running), so wake-ups do not pile up: ' +
        `${integer(queuedAtEnd)} were still queued when this run ended.`,
      '',
    ].join('\n');
    process.stdout.write(`\n${text}\n`);
    writeFileSync(output, upsertSection(readIfExists(output), SECTION_HEADING, text));
    log(`wrote ${output}`);
  } finally {
    await db?.end();
    await receiver.close();
  }
});
