import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  apiFor,
  embeddedDatabaseUrl,
  log,
  readIfExists,
  runBenchmark,
  signUp,
  startService,
  upsertSection,
} from './lib.ts';

/**
 * `npm run bench:analytics`: speaker analytics over a large library. Loads `--meetings` synthetic
 * meetings (4–6 of 40 speakers each, 80 timed turns with questions and overlaps, spread over a
 * year) through `POST /videos`, then times `GET /analytics/speakers` and
 * `GET /analytics/speakers/{speakerId}` one request after the other, beside the floor measured in
 * the same run: the list's sums as one SQL statement through raw `pg`. Rewrites the
 * `## Speaker analytics` section of docs/benchmarks.md.
 *
 *   npm run bench:analytics -- --meetings 200 --requests 50
 */

const SECTION_HEADING = '## Speaker analytics';
const PARALLEL_WRITES = 8;
const SPEAKERS = Array.from(
  { length: 40 },
  (_, index) => `Speaker ${String.fromCharCode(65 + (index % 26))}${index}`,
);
const LINES = [
  'I think we should ship the new onboarding flow before the end of the quarter.',
  'What do you think about moving the billing migration to next sprint?',
  'The customer interviews showed that small teams want a simpler setup.',
  'Can we agree on the owner for the search latency work this week?',
  'We measured the p95 at eighty milliseconds after the index change.',
  'That sounds good to me.',
  'Who is going to write the summary for the design review on Friday?',
  'Let us keep the scope small and revisit it after the launch.',
];

const { values } = parseArgs({
  options: {
    meetings: { type: 'string', default: '1000' },
    requests: { type: 'string', default: '200' },
    output: { type: 'string', default: path.join(import.meta.dirname, '../../docs/benchmarks.md') },
  },
});
const MEETINGS = Number(values.meetings);
const REQUESTS = Number(values.requests);

/** A deterministic generator, so every run loads the same library. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const clock = (seconds: number) => {
  const millis = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const whole = Math.floor(millis / 1000);
  return `${pad(Math.floor(whole / 3600))}:${pad(Math.floor(whole / 60) % 60)}:${pad(whole % 60)}.${pad(millis % 1000, 3)}`;
};

function meeting(index: number) {
  const next = random(index + 1);
  const present = [...SPEAKERS].sort(() => next() - 0.5).slice(0, 4 + Math.floor(next() * 3));
  let at = 0;
  const cues = ['WEBVTT', ''];
  for (let turn = 0; turn < 80; turn++) {
    const speaker = present[Math.floor(next() * present.length)] as string;
    const length = 3 + next() * 20;
    // One turn in eight starts before the previous one ends: an interruption.
    const start = next() < 0.125 ? Math.max(0, at - 1.5) : at + next() * 2;
    cues.push(
      `${clock(start)} --> ${clock(start + length)}`,
      `<v ${speaker}>${LINES[Math.floor(next() * LINES.length)]}`,
      '',
    );
    at = start + length;
  }
  return { text: cues.join('\n'), durationSeconds: Math.ceil(at) };
}

async function load(baseUrl: string, token: string, organizationId: string) {
  const api = apiFor(baseUrl, token);
  let next = 0;
  let done = 0;
  const yearAgo = Date.now() - 365 * 24 * 3600 * 1000;
  await Promise.all(
    Array.from({ length: PARALLEL_WRITES }, async () => {
      while (next < MEETINGS) {
        const index = next++;
        const { text, durationSeconds } = meeting(index);
        await api('POST', '/videos', {
          organizationId,
          title: `Team meeting ${index + 1}`,
          duration: String(durationSeconds),
          recordedAt: new Date(yearAgo + (index / MEETINGS) * 365 * 24 * 3600 * 1000).toISOString(),
          transcript: text,
        });
        done++;
        if (done % 100 === 0) log(`loaded ${done} of ${MEETINGS} meetings`);
      }
    }),
  );
}

type Timing = { p50: number; p95: number; max: number };
const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;

/** Runs `task` REQUESTS times one after the other (after 10 unrecorded), in milliseconds. */
async function time(task: () => Promise<void>): Promise<Timing> {
  for (let warm = 0; warm < 10; warm++) await task();
  const samples: number[] = [];
  for (let index = 0; index < REQUESTS; index++) {
    const started = performance.now();
    await task();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95), max: samples.at(-1) ?? 0 };
}

/** The list's sums, as the service computes them, in one statement: the floor. */
const FLOOR_SQL = `SELECT s.speaker_id, sp.name, count(DISTINCT s.video_id), sum(s.talk_seconds), sum(s.word_count),
    sum(s.turns), max(s.longest_monologue_seconds), sum(s.monologue_seconds), sum(s.question_count),
    sum(s.interruptions), sum(s.patience_seconds), sum(s.patience_count)
  FROM video_speaker_stats s JOIN videos v ON v.id = s.video_id JOIN speakers sp ON sp.id = s.speaker_id
  WHERE s.organization_id = $1 AND NOT v.is_deleted
  GROUP BY s.speaker_id, sp.name ORDER BY sum(s.talk_seconds) DESC LIMIT 20`;

const ms = (value: number) => `${value.toFixed(1)} ms`;

await runBenchmark('bench:analytics', async ({ dataDir, children }) => {
  const { baseUrl, pgPort } = await startService(dataDir, children, {
    FREE_PLAN_VIDEOS: String(MEETINGS * 2),
  });
  const { token, organizationId } = await signUp(baseUrl, { email: 'analytics@example.com', name: 'Bench' });
  const loadStarted = performance.now();
  log(`loading ${MEETINGS} meetings through POST /videos`);
  await load(baseUrl, token, organizationId);
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  // Let the knowledge extraction the uploads queued finish, so that it does not share the CPU.
  await new Promise((resolve) => setTimeout(resolve, 15_000));

  const headers = { authorization: `Bearer ${token}` };
  const get = async (url: string) => {
    const response = await fetch(`${baseUrl}${url}`, { headers });
    if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<{ data: Array<{ speakerId: string }>; totals: { videoCount: number } }>;
  };
  const first = await get('/analytics/speakers');
  const top = first.data[0]?.speakerId;
  if (!top || first.totals.videoCount !== MEETINGS) {
    throw new Error(`expected ${MEETINGS} meetings in the analytics, got ${first.totals.videoCount}`);
  }
  const pool = new pg.Pool({ connectionString: embeddedDatabaseUrl(dataDir, pgPort), max: 1 });
  const date = new Date();
  const loadBefore = os.loadavg()[0] ?? 0;
  const list = await time(async () => void (await get('/analytics/speakers')));
  const detail = await time(async () => void (await get(`/analytics/speakers/${top}`)));
  const floor = await time(async () => void (await pool.query(FLOOR_SQL, [organizationId])));
  await pool.end();

  const rows = [
    ['`GET /analytics/speakers` (first page, totals)', list],
    ['`GET /analytics/speakers/{speakerId}` (the top speaker)', detail],
    ["Floor: the list's sums, one SQL statement through raw `pg`", floor],
  ] as const;
  const table = [
    '| Request | p50 | p95 | max | target p95 |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      ([label, timing], index) =>
        `| ${label} | ${ms(timing.p50)} | ${ms(timing.p95)} | ${ms(timing.max)} | ${index < 2 ? '≤ 100 ms' : ''} |`,
    ),
  ].join('\n');
  process.stdout.write(`\n${table}\n`);
  const cpus = os.cpus();
  const text = [
    SECTION_HEADING,
    '',
    `Measured ${date.toISOString()} on ${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length} CPUs, Node ${process.version}; ` +
      `1-minute load average ${loadBefore.toFixed(2)} before the first request. Reproduce with \`npm run bench:analytics\`.`,
    '',
    `Method: ${MEETINGS.toLocaleString('en-US')} synthetic meetings in one organization (4–6 of 40 speakers each, 80 timed ` +
      `turns, one in eight interrupting, spread over a year), loaded through \`POST /videos\` in ${loadSeconds.toFixed(0)} s ` +
      '(the per-speaker statistics are written with each transcript); then, after the queued knowledge extraction ' +
      `settled, ${REQUESTS} requests of each kind one after the other (after 10 unrecorded), from the same machine, ` +
      "over HTTP with a session token. The floor runs the list's aggregation alone, as one statement through raw `pg`, " +
      'in the same run.',
    '',
    table,
    '',
  ].join('\n');
  writeFileSync(
    values.output as string,
    upsertSection(readIfExists(values.output as string), SECTION_HEADING, text),
  );
  log(`wrote ${path.relative(process.cwd(), values.output as string)}`);
});
