import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { connectDatabase } from '../../src/db/client.ts';
import { search } from '../../src/modules/search/service.ts';
import { qmsumTranscript } from '../seed/qmsum.ts';
import {
  KNOWLEDGE_HEADING,
  knowledgeCalls,
  knowledgeSection,
  timeCalls,
  waitForExtraction,
} from './knowledge.ts';
import {
  type Api,
  apiFor,
  hasExited,
  log,
  ROOT,
  ratio,
  readIfExists,
  runBenchmark,
  signUp,
  startService,
  stopIfInterrupted,
  upsertSection,
} from './lib.ts';

/**
 * `npm run bench:search`: `GET /search` on a large library. Loads QMSum training meetings through
 * `POST /videos` (repeated, each repeat a little different, until `--meetings` are in), then times
 * the endpoint over HTTP and, as its floor, the service function that runs the same SQL through
 * `pg` in this process, alternating between the two. Rewrites the `## Search` section of
 * docs/benchmarks.md.
 *
 *   npm run bench:search -- --meetings 200 --requests 100
 */

const SECTION_HEADING = '## Search';
const QA_HEADING = '## Question answering';
const QA_TARGET_P95_MS = 300;
const SECRET = 'benchmark-secret-of-at-least-32-characters';
const PARALLEL_WRITES = 6;
const PAGE = { page: 1, limit: 20 } as const;
const TARGET_P95_MS = 50;
const TARGET_RATIO = 1.5;

/** What people ask of meetings (keywords of QMSum's own questions), in every form the syntax has. */
const QUERIES = [
  'remote control battery',
  'budget',
  'user interface design',
  '"speech recognition"',
  'marketing -expert',
  'prototype OR evaluation',
  'presen',
  'covid funding schools',
  'meeting',
  'kangaroo',
  'HMRC',
  'fruit vegetable theme',
  '"contact tracing"',
  'free school meals',
  'rechargeable',
  'social workers workload',
  'microphone',
  'product positioning',
  '"Schools Challenge Cymru"',
  'exclusion rates',
  'transcrib',
];

function settings() {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: path.join(ROOT, '..', 'shared', 'data', 'qmsum', 'train') },
      meetings: { type: 'string', default: '1000' },
      requests: { type: 'string', default: '300' },
      output: { type: 'string', default: path.join(ROOT, 'docs', 'benchmarks.md') },
    },
  });
  const whole = (name: string, raw: string) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number above 0`);
    return value;
  };
  const dir = path.resolve(values.dir);
  if (!existsSync(dir)) {
    throw new Error(
      `QMSum training meetings not found in ${dir}: pass --dir <directory of QMSum *.json files>`,
    );
  }
  return {
    dir,
    meetings: whole('meetings', values.meetings),
    requests: whole('requests', values.requests),
    output: path.resolve(values.output),
  };
}

type Turn = { speaker?: unknown; content?: unknown };
type Source = { name: string; turns: Turn[]; questions: string[] };

async function readSources(dir: string): Promise<Source[]> {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  const sources: Source[] = [];
  for (const file of files) {
    const json = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as {
      meeting_transcripts?: Turn[];
      specific_query_list?: Array<{ query: string }>;
    };
    const turns = json.meeting_transcripts ?? [];
    const questions = (json.specific_query_list ?? []).map((question) => question.query);
    if (turns.length > 0) sources.push({ name: path.basename(file, '.json'), turns, questions });
  }
  if (sources.length === 0) throw new Error(`no QMSum meetings (*.json with turns) in ${dir}`);
  return sources;
}

/**
 * Meeting `index`: the sources in turn; take 2 onwards starts a different way into the meeting
 * (its turns rotated), so that repeats are not identical documents with identical chunks.
 */
function meetingAt(sources: Source[], index: number) {
  const source = sources[index % sources.length] as Source;
  const take = Math.floor(index / sources.length) + 1;
  const offset = Math.floor((source.turns.length * (take - 1)) / 7) % source.turns.length;
  const turns = [...source.turns.slice(offset), ...source.turns.slice(0, offset)];
  const title = take === 1 ? `QMSum meeting ${source.name}` : `QMSum meeting ${source.name} (take ${take})`;
  return qmsumTranscript({ meeting_transcripts: turns }, title);
}

/**
 * Creates `count` meetings, `PARALLEL_WRITES` at a time; returns the words they hold and, by
 * source, the id of its first take (the meeting its questions are asked of).
 */
async function loadMeetings(api: Api, organizationId: string, sources: Source[], count: number) {
  let next = 0;
  let done = 0;
  let words = 0;
  const firstTakes = new Map<string, string>();
  await Promise.all(
    Array.from({ length: PARALLEL_WRITES }, async () => {
      while (next < count) {
        stopIfInterrupted();
        const index = next++;
        const meeting = meetingAt(sources, index);
        if (!meeting) continue;
        const created = await api<{ id: string }>('POST', '/videos', {
          organizationId,
          title: meeting.title,
          duration: meeting.duration,
          transcript: meeting.transcript,
        });
        if (index < sources.length) firstTakes.set((sources[index] as Source).name, created.id);
        words += meeting.words;
        done++;
        if (done % 100 === 0)
          log(`loaded ${done} of ${count} meetings (${words.toLocaleString('en-US')} words)`);
      }
    }),
  );
  return { meetings: done, words, firstTakes };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

function stats(samples: number[]) {
  const sorted = [...samples].sort((x, y) => x - y);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) as number,
    count: sorted.length,
  };
}

type Stats = ReturnType<typeof stats>;
type Timer = (q: string) => Promise<number>;

/**
 * Both ways to run the queries, one pass of every query each in turn until each has made
 * `requests` timed calls (after one unrecorded pass each), so that whatever the machine is doing
 * weighs on both alike. Returns the latencies per way and per query.
 */
async function interleave(ways: Record<'endpoint' | 'floor', Timer>, requests: number) {
  for (const time of Object.values(ways)) for (const q of QUERIES) await time(q);
  const samples = { endpoint: [] as number[], floor: [] as number[] };
  const perQuery = new Map(QUERIES.map((q) => [q, { endpoint: [] as number[], floor: [] as number[] }]));
  let made = 0;
  while (made < requests) {
    const pass = QUERIES.slice(0, requests - made);
    for (const way of ['endpoint', 'floor'] as const) {
      for (const q of pass) {
        stopIfInterrupted();
        const ms = await ways[way](q);
        samples[way].push(ms);
        perQuery.get(q)?.[way].push(ms);
      }
    }
    made += pass.length;
  }
  return { samples, perQuery };
}

const ms = (value: number) => value.toFixed(1);
const row = (label: string, s: Stats) =>
  `| ${label} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} | ${s.count} |`;
const megabytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
const median = (values: number[]) => stats(values).p50;

type Report = {
  date: Date;
  requests: number;
  loaded: { meetings: number; words: number };
  sources: number;
  chunks: number;
  segments: number;
  databaseBytes: number;
  loadSeconds: number;
  endpoint: Stats;
  floor: Stats;
  perQuery: Map<string, { endpoint: number[]; floor: number[] }>;
  totals: Map<string, number>;
};

type QaTiming = { timing: Stats; answered: number };

/** The `## Question answering` section: POST /ai/qa with the local engine over the same corpus. */
function qaSection(wide: QaTiming, scoped: QaTiming, questions: number, meetings: number): string {
  const verdict = ({ timing }: QaTiming) =>
    `${timing.p95 <= QA_TARGET_P95_MS ? 'met' : '**not met**'} (${ms(timing.p95)} ms)`;
  return [
    QA_HEADING,
    '',
    'Reproduce with `npm run bench:search` (the same run and corpus as the search figures above).',
    '',
    `Method: after the search timings, ${questions} QMSum questions (the training meetings' specific ` +
      `queries) are asked one at a time through \`POST /ai/qa\` over HTTP, twice: with no scope — each searches all ` +
      `${meetings.toLocaleString('en-US')} meetings of the organization, then the local engine answers from the ` +
      '5 best stretches of its 10 best passages — and scoped to the meeting the question was written for (`videoIds`), ' +
      "where the answer also weighs how the meeting stands against the organization's best for the question " +
      '(the evidence behind "I don\'t know"). Each question is stored and charged. The time is to the last byte of the 201.',
    '',
    '| Measured | p50 ms | p95 ms | p99 ms | max ms | calls |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('`POST /ai/qa` (local engine), whole organization', wide.timing),
    row('`POST /ai/qa` (local engine), scoped to the meeting', scoped.timing),
    '',
    `Answered (not "I don't know"): ${wide.answered} of ${questions} over the organization, ` +
      `${scoped.answered} of ${questions} scoped. Target: p95 ≤ ${QA_TARGET_P95_MS} ms — whole organization ` +
      `${verdict(wide)}, scoped ${verdict(scoped)}.`,
    '',
  ].join('\n');
}

/** Asks each question through `POST /ai/qa`, one at a time, with the scope `scopeOf` gives it. */
async function timeQuestions(
  baseUrl: string,
  headers: Record<string, string>,
  questions: Array<{ question: string; source: string }>,
  scopeOf: (source: string) => Record<string, unknown>,
): Promise<QaTiming> {
  const samples: number[] = [];
  let answered = 0;
  for (const { question, source } of questions) {
    stopIfInterrupted();
    const started = performance.now();
    const response = await fetch(`${baseUrl}/ai/qa`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ question, ...scopeOf(source) }),
    });
    const body = await response.text();
    samples.push(performance.now() - started);
    if (response.status !== 201)
      throw new Error(`POST /ai/qa answered ${response.status}: ${body.slice(0, 300)}`);
    if ((JSON.parse(body) as { answered: boolean }).answered) answered++;
  }
  return { timing: stats(samples), answered };
}

function section(report: Report): string {
  const { endpoint, floor } = report;
  const cpus = os.cpus();
  const p95Ratio = endpoint.p95 / floor.p95;
  const p95Met = endpoint.p95 <= TARGET_P95_MS;
  const ratioMet = p95Ratio <= TARGET_RATIO;
  const verdict = (met: boolean) => (met ? 'met' : '**not met**');
  return [
    SECTION_HEADING,
    '',
    `Reproduce with \`npm run bench:search\` (QMSum in \`../shared/data/qmsum/train\`, or \`-- --dir <dir>\`). ` +
      `Measured ${report.date.toISOString()} on ${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length} CPUs, ` +
      `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, Node ${process.version}.`,
    '',
    `Method: the service (child process, fresh embedded PostgreSQL, request logging off, rate limiter counting ` +
      `without refusing) gets ${report.loaded.meetings.toLocaleString('en-US')} meetings in one organization, ` +
      `created through \`POST /videos\` ${PARALLEL_WRITES} at a time: the ${report.sources} QMSum training ` +
      'meetings in turn, each repeat with its turns rotated to start elsewhere and "(take N)" in its title. ' +
      `That is ${report.loaded.words.toLocaleString('en-US')} words, ${report.segments.toLocaleString('en-US')} ` +
      `transcript segments and ${report.chunks.toLocaleString('en-US')} search chunks; the database is ` +
      `${megabytes(report.databaseBytes)} after \`VACUUM ANALYZE\`. Loading took ${(report.loadSeconds / 60).toFixed(1)} min. ` +
      `Then ${QUERIES.length} queries taken from QMSum's questions (words, phrases, \`-\`, \`OR\`, prefixes, ` +
      'common and rare words) run one request at a time, first page of 20: `GET /search?q=…` over HTTP with a ' +
      'session token (keep-alive, the time to the last byte of the body), and, as the floor, the service ' +
      'function `search()` called in the benchmark process through its own `pg` pool — the same SQL without ' +
      'HTTP, session lookup, rate limiter, validation or serialisation. The two alternate, one pass of every ' +
      `query each, until each has made ${report.requests} timed calls after an unrecorded pass.`,
    '',
    '| Measured | p50 ms | p95 ms | p99 ms | max ms | calls |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('`GET /search` over HTTP', endpoint),
    row('`search()` through `pg` (floor)', floor),
    '',
    `Endpoint / floor: p50 ${ratio(endpoint.p50, floor.p50)}, p95 ${ratio(endpoint.p95, floor.p95)}, ` +
      `p99 ${ratio(endpoint.p99, floor.p99)}.`,
    '',
    `Targets: p95 ≤ ${TARGET_P95_MS} ms — ${verdict(p95Met)} (${ms(endpoint.p95)} ms); endpoint within ` +
      `${TARGET_RATIO}× of its query at p95 — ${verdict(ratioMet)} (${p95Ratio.toFixed(2)}×).`,
    '',
    'Per query (median of its calls; results is the total the first page reports):',
    '',
    '| Query | results | endpoint p50 ms | floor p50 ms |',
    '| --- | ---: | ---: | ---: |',
    ...QUERIES.map((q) => {
      const times = report.perQuery.get(q);
      const cell = (values: number[] | undefined) => (values?.length ? ms(median(values)) : '–');
      return `| \`${q}\` | ${(report.totals.get(q) ?? 0).toLocaleString('en-US')} | ${cell(times?.endpoint)} | ${cell(times?.floor)} |`;
    }),
    '',
  ].join('\n');
}

const options = settings();

await runBenchmark('bench:search', async ({ dataDir, children }) => {
  const sources = await readSources(options.dir);
  const { service, baseUrl, pgPort } = await startService(dataDir, children, {
    SECRET,
    AI_MONTHLY_CREDITS: '1000000000',
    // The Free plan keeps 500 videos: the library measured is larger.
    FREE_PLAN_VIDEOS: String(options.meetings * 2),
  });
  const password = readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  const databaseUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/knowledge_hub`;

  const { userId, organizationId, token } = await signUp(baseUrl, {
    email: 'search-bench@example.com',
    name: 'Bench',
  });

  log(`loading ${options.meetings} meetings from ${sources.length} QMSum files in ${options.dir}`);
  const loadStarted = performance.now();
  const loaded = await loadMeetings(apiFor(baseUrl, token), organizationId, sources, options.meetings).catch(
    (error: Error) => {
      throw new Error(`${error.message}\nThe service's last output:\n${service.output().trim()}`);
    },
  );
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  log(
    `loaded ${loaded.meetings} meetings, ${loaded.words.toLocaleString('en-US')} words in ${loadSeconds.toFixed(0)} s ` +
      `(${Math.round(loaded.words / loadSeconds).toLocaleString('en-US')} words/s)`,
  );

  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const database = connectDatabase(databaseUrl);
  try {
    // Extraction runs in the background after each upload: timed, and finished before any timing.
    const extraction = await waitForExtraction(admin, performance.now(), stopIfInterrupted);
    log(
      `extraction finished ${extraction.seconds.toFixed(0)} s after loading: ${JSON.stringify(extraction.statuses)}`,
    );
    log('VACUUM ANALYZE');
    await admin.query('vacuum analyze');
    const { rows } = await admin.query<{ chunks: number; segments: number; bytes: string }>(
      `select (select count(*) from transcript_chunks)::int as chunks,
        (select count(*) from transcript_segments)::int as segments,
        pg_database_size(current_database())::text as bytes`,
    );
    const counts = rows[0] as { chunks: number; segments: number; bytes: string };

    const totals = new Map<string, number>();
    const headers = { authorization: `Bearer ${token}` };
    const endpoint: Timer = async (q) => {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/search?${new URLSearchParams({ q })}`, { headers });
      const body = await response.text();
      const elapsed = performance.now() - started;
      if (response.status !== 200)
        throw new Error(`GET /search?q=${q} answered ${response.status}: ${body.slice(0, 300)}`);
      totals.set(q, (JSON.parse(body) as { pagination: { total: number } }).pagination.total);
      return elapsed;
    };
    const floor: Timer = async (q) => {
      const started = performance.now();
      await search(database.db, userId, { q, ...PAGE });
      return performance.now() - started;
    };
    log(`timing ${QUERIES.length} queries, ${options.requests} calls each way, alternating`);
    const { samples, perQuery } = await interleave({ endpoint, floor }, options.requests);
    if (hasExited(service)) throw new Error(`the service exited during the run:\n${service.output().trim()}`);

    const text = section({
      date: new Date(),
      requests: options.requests,
      loaded,
      sources: sources.length,
      chunks: counts.chunks,
      segments: counts.segments,
      databaseBytes: Number(counts.bytes),
      loadSeconds,
      endpoint: stats(samples.endpoint),
      floor: stats(samples.floor),
      perQuery,
      totals,
    });
    const questions = sources
      .filter((source) => loaded.firstTakes.has(source.name))
      .flatMap((source) => source.questions.map((question) => ({ question, source: source.name })))
      .slice(0, options.requests);
    log(`timing POST /ai/qa: ${questions.length} QMSum questions, one at a time, unscoped then scoped`);
    const wide = await timeQuestions(baseUrl, headers, questions, () => ({}));
    const scoped = await timeQuestions(baseUrl, headers, questions, (source) => ({
      videoIds: [loaded.firstTakes.get(source)],
    }));
    const qaText = qaSection(wide, scoped, questions.length, loaded.meetings);
    const day = new Date().toISOString().slice(0, 10);
    const knowledgeRequests = Math.min(options.requests, 50);
    log(`timing the knowledge routes, ${knowledgeRequests} calls each`);
    const knowledgeResults = await timeCalls(
      baseUrl,
      headers,
      await knowledgeCalls(admin, day),
      knowledgeRequests,
      stats,
    );
    const knowledgeText = knowledgeSection({
      meetings: loaded.meetings,
      extraction,
      results: knowledgeResults,
    });
    process.stdout.write(`\n${text}\n\n${qaText}\n\n${knowledgeText}\n`);
    let report = upsertSection(readIfExists(options.output), SECTION_HEADING, text);
    report = upsertSection(report, QA_HEADING, qaText);
    writeFileSync(options.output, upsertSection(report, KNOWLEDGE_HEADING, knowledgeText));
    log(`wrote ${path.relative(process.cwd(), options.output)}`);
  } finally {
    await Promise.all([admin.end(), database.close()]);
  }
});
