import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../../test/helpers/ports.ts';
import { openEventStream } from '../../test/helpers/sse.ts';
import {
  apiFor,
  hasExited,
  log,
  ROOT,
  readIfExists,
  runBenchmark,
  startChild,
  upsertSection,
  waitForHealth,
} from './lib.ts';

/**
 * `npm run bench:notifications`: how long a notification takes to reach a live stream. Starts two
 * instances of the service on one database (the first runs the embedded PostgreSQL, the second
 * connects to it with DATABASE_URL), signs up two people, and has one invite the other again and
 * again through instance A while the invitee holds `GET /notifications/stream` open on instance B
 * (and, for comparison, on A). Rewrites the `## Notification delivery` section of docs/benchmarks.md.
 *
 *   npm run bench:notifications -- --count 300
 */

const SECTION_HEADING = '## Notification delivery';
const SECRET = 'benchmark-secret-of-at-least-32-characters';

function settings() {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '200' },
      output: { type: 'string', default: path.join(ROOT, 'docs', 'benchmarks.md') },
    },
  });
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 10) throw new Error('--count must be a whole number ≥ 10');
  return { count, output: path.resolve(values.output) };
}

type SignUp = {
  data: { user: { email: string; defaultOrganizationId: string }; session: { sessionId: string } };
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

function summary(samples: number[]) {
  const sorted = [...samples].sort((x, y) => x - y);
  const ms = (value: number) => value.toFixed(1);
  return `${ms(percentile(sorted, 50))} | ${ms(percentile(sorted, 95))} | ${ms(percentile(sorted, 99))} | ${ms(sorted.at(-1) as number)}`;
}

const { count, output } = settings();

await runBenchmark('bench:notifications', async ({ dataDir, children }) => {
  const [portA, portB, pgPort] = [await freePort(), await freePort(), await freePort()];
  const { DATABASE_URL: _externalDatabase, ...inherited } = process.env;
  const common = {
    ...inherited,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    SECRET,
    RATE_LIMIT_PER_MINUTE: '1000000000',
  };
  log(`starting instance A on port ${portA} with the embedded PostgreSQL (DATA_DIR ${dataDir})`);
  const a = startChild('instance A', 'src/server.ts', {
    ...common,
    PORT: String(portA),
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(pgPort),
  });
  children.push(a);
  const urlA = `http://127.0.0.1:${portA}`;
  await waitForHealth(a, `${urlA}/health`);
  const password = readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  log(`starting instance B on port ${portB} on A's database`);
  const b = startChild('instance B', 'src/server.ts', {
    ...common,
    PORT: String(portB),
    DATA_DIR: path.join(dataDir, 'instance-b'),
    DATABASE_URL: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/knowledge_hub`,
  });
  children.push(b);
  const urlB = `http://127.0.0.1:${portB}`;
  await waitForHealth(b, `${urlB}/health`);

  const credentials = { password: 'benchmark-password' };
  const inviter = await apiFor(urlA)<SignUp>('POST', '/auth/sign-up', {
    ...credentials,
    email: 'inviter@example.com',
    name: 'Inviter',
  });
  const invitee = await apiFor(urlA)<SignUp>('POST', '/auth/sign-up', {
    ...credentials,
    email: 'invitee@example.com',
    name: 'Invitee',
  });
  const inviteeHeaders = { authorization: `Bearer ${invitee.data.session.sessionId}` };
  const onB = await openEventStream(`${urlB}/notifications/stream`, inviteeHeaders);
  const onA = await openEventStream(`${urlA}/notifications/stream`, inviteeHeaders);
  await Promise.all([onB.next('ready'), onA.next('ready')]);

  const invitationsPath = `/organizations/${inviter.data.user.defaultOrganizationId}/invitations`;
  const asInviter = apiFor(urlA, inviter.data.session.sessionId);
  const request: number[] = [];
  const crossInstance: number[] = [];
  const sameInstance: number[] = [];
  log(`sending ${count} invitations one after another`);
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const arrivals = Promise.all(
      [onB, onA].map((stream) => stream.next('notification', 10_000).then(() => performance.now())),
    );
    await asInviter('POST', invitationsPath, {
      email: 'invitee@example.com',
      role: 'member',
    });
    const answered = performance.now();
    const [atB, atA] = await arrivals;
    request.push(answered - started);
    crossInstance.push((atB as number) - started);
    sameInstance.push((atA as number) - started);
  }
  await Promise.all([onA.close(), onB.close()]);
  for (const child of children) {
    if (hasExited(child)) throw new Error(`${child.name} exited during the run:\n${child.output().trim()}`);
  }

  const cpus = os.cpus();
  const text = [
    SECTION_HEADING,
    '',
    `Reproduce with \`npm run bench:notifications\`. Measured ${new Date().toISOString()} on ` +
      `${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length} CPUs, Node ${process.version}.`,
    '',
    'Method: two instances of the service on one database (A runs the embedded PostgreSQL, B connects to it). ' +
      `One person invites another ${count} times, one request after the other, through A; each invitation ` +
      'notifies the invitee, who holds `GET /notifications/stream` open on B and on A. Times run from sending ' +
      'the request to the event arriving, so they include the request itself (the transaction that writes the ' +
      'invitation, its mail and the notification, then commits and signals LISTEN/NOTIFY).',
    '',
    '| Measured | p50 ms | p95 ms | p99 ms | max ms |',
    '| --- | ---: | ---: | ---: | ---: |',
    `| \`POST /organizations/{id}/invitations\` answered | ${summary(request)} |`,
    `| Event on a stream held on the other instance (B) | ${summary(crossInstance)} |`,
    `| Event on a stream held on the same instance (A) | ${summary(sameInstance)} |`,
    '',
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  writeFileSync(output, upsertSection(readIfExists(output), SECTION_HEADING, text));
  log(`wrote ${path.relative(process.cwd(), output)}`);
});
