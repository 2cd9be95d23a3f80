import { existsSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { stemmer } from 'stemmer';
import { rouge } from '../../src/lib/rouge.ts';
import {
  AI_QUALITY,
  apiFor,
  log,
  ROOT,
  readIfExists,
  runBenchmark,
  signUp,
  startService,
  stopIfInterrupted,
  upsertSection,
} from '../bench/lib.ts';
import {
  type QmsumFile,
  type QmsumMeeting,
  type QmsumQuestion,
  qmsumQuestions,
  qmsumTranscript,
} from '../seed/qmsum.ts';
import { baselineAnswer, bm25Index, type Cue } from './bm25-baseline.ts';

/**
 * `npm run eval:qmsum -- [--dir DIR] [--limit N] [--details FILE]`: how well the knowledge layer
 * finds and answers on real meetings, beside a BM25 baseline measured in the same run. Loads the
 * QMSum meetings through `POST /videos` into one organization of a fresh service (embedded
 * PostgreSQL in a temporary directory, local engine) and, for every specific question with a
 * relevant span: types the question into `GET /search`; asks it through `POST /ai/qa` scoped to
 * its meeting, to the whole organization, and to an unrelated meeting (where the honest answer is
 * "I don't know"). The baseline (bm25-baseline.ts) answers the same questions over the same
 * transcript cues. Writes the `## QMSum: search and question answering` section of docs/ai-quality.md.
 */

const SECTION_HEADING = '## QMSum: search and question answering';
const K = 5;
const PARALLEL = 4;
/** The QMSum paper's ROUGE-1 on its specific-query task (test set, Porter stemming), for comparison. */
const ANCHORS = [
  ['TextRank', '16.27'],
  ['BART', '29.20'],
  ['Best system (locator + summarizer)', '32.29'],
  ['Extractive oracle', '42.84'],
] as const;
/** QMSum's three corpora: a question about one is unrelated to every meeting of another. */
const FAMILIES = [/^B/, /^(ES|IS|TS)/, /^(covid|education)_/];
/** What each of FAMILIES is, for the report's table by corpus. */
const FAMILY_NAMES = [
  'academic (ICSI research group)',
  'product design (AMI: teams designing the same remote control)',
  'parliamentary committee (Welsh and Canadian)',
];

function options() {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: path.join(ROOT, '..', 'shared', 'data', 'qmsum', 'train') },
      limit: { type: 'string', default: '1000' },
      output: { type: 'string', default: path.join(ROOT, 'docs', 'ai-quality.md') },
      details: { type: 'string' },
    },
  });
  const dir = path.resolve(values.dir);
  if (!existsSync(dir)) throw new Error(`no QMSum directory at ${dir} (pass --dir)`);
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a whole number above 0');
  return {
    dir,
    limit,
    output: path.resolve(values.output),
    details: values.details ? path.resolve(values.details) : undefined,
  };
}

type Segment = { index: number; start: number; end: number; text: string };
type Question = QmsumQuestion & { reference: string };
type Loaded = { file: string; videoId: string; segments: Segment[]; questions: Question[] };
type Citation = { videoId: string; start: number; end: number; quote: string };
type Answer = { answer: string; answered: boolean; citations: Citation[] };
type Moment = { start: number; end: number };
type SearchPage = { data: Array<{ type: string; videoId: string | null; moments?: Moment[] }> };
type Place = { videoId: string; start: number; end: number };

/** One system's figures on one question. */
type Outcome = {
  searchHit: boolean;
  meetingHit: boolean;
  organizationHit: boolean;
  answered: boolean;
  answeredUnrelated: boolean;
  rouge1: number;
  answer: string;
};

function questionsOf(json: QmsumFile, meeting: QmsumMeeting): Question[] {
  const items = (json.specific_query_list ?? []) as Array<{ query: string; answer?: unknown }>;
  return items.flatMap((item) =>
    qmsumQuestions({ specific_query_list: [item] }, meeting).map((question) => ({
      ...question,
      reference: String(item.answer ?? ''),
    })),
  );
}

/** The segment that holds a time (the second a moment or a citation opens at). */
function segmentAt(segments: Segment[], seconds: number): Segment | undefined {
  let low = 0;
  let high = segments.length - 1;
  let found: Segment | undefined;
  while (low <= high) {
    const at = (low + high) >> 1;
    const segment = segments[at] as Segment;
    if (segment.start <= seconds) {
      found = segment;
      low = at + 1;
    } else high = at - 1;
  }
  return found && seconds <= found.end ? found : undefined;
}

/**
 * Where each of the first K places (moments or citations) opens: the index of the segment of the
 * question's meeting it opens in, null when it is in another meeting. A place counts by where it
 * opens, plus a hair so that a start on a boundary falls in the segment it starts: where a person
 * clicking it lands.
 */
function opensOf(places: Place[], meeting: Loaded, segmentsOf: Map<string, Segment[]>) {
  return places
    .slice(0, K)
    .map((place) =>
      place.videoId === meeting.videoId
        ? (segmentAt(segmentsOf.get(place.videoId) ?? [], place.start + 0.01)?.index ?? null)
        : null,
    );
}

/** Whether a place opens in a segment QMSum marks as answering the question. */
const hits = (opens: Array<number | null>, question: Question) =>
  opens.some(
    (index) =>
      index !== null && question.segmentRanges.some(([first, last]) => index >= first && index <= last),
  );

/** `[n]` citation markers are links, not words of the answer. */
const withoutMarkers = (answer: string) =>
  answer
    .replace(/\s*\[\d+\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

const rouge1 = (answer: string, reference: string) => rouge(answer, reference, { stem: stemmer }).rouge1.f1;

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < items.length) {
        stopIfInterrupted();
        await work(items[next++] as T);
      }
    }),
  );
}

/** A meeting of another QMSum corpus than `file`'s, picked by position so that runs repeat. */
function unrelatedTo(file: string, position: number, meetings: Loaded[]): Loaded {
  const family = FAMILIES.findIndex((pattern) => pattern.test(file));
  const others = meetings.filter((meeting) => !FAMILIES[Math.max(family, 0)]?.test(meeting.file));
  return (others[position % Math.max(others.length, 1)] ?? meetings[0]) as Loaded;
}

const { dir, limit, output, details } = options();

await runBenchmark('eval:qmsum', async ({ dataDir, children }) => {
  const { baseUrl } = await startService(dataDir, children, {
    AI_PROVIDER: 'local',
    AI_MONTHLY_CREDITS: '1000000000',
  });
  const { organizationId, token } = await signUp(baseUrl, { email: 'eval@example.com', name: 'Eval' });
  const api = apiFor(baseUrl, token);

  const all = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  // A limit takes meetings spread over the directory, so that every corpus is in the sample.
  const files = all.filter((_, at) => (at * limit) % all.length < limit);
  const loaded: Loaded[] = [];
  log(`loading ${files.length} meetings from ${dir} through POST /videos`);
  await inParallel(files, async (file) => {
    const json = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as QmsumFile;
    const meeting = qmsumTranscript(json, `QMSum ${path.basename(file, '.json')}`);
    if (!meeting) return;
    const video = await api<{ id: string }>('POST', '/videos', {
      organizationId,
      title: meeting.title,
      duration: meeting.duration,
      transcript: meeting.transcript,
    });
    const transcript = await api<{ segments: Segment[] }>('GET', `/videos/${video.id}/transcript`);
    loaded.push({
      file,
      videoId: video.id,
      segments: transcript.segments,
      questions: questionsOf(json, meeting),
    });
  });
  loaded.sort((a, b) => a.file.localeCompare(b.file));
  const segmentsOf = new Map(loaded.map((meeting) => [meeting.videoId, meeting.segments]));
  const cuesOf = (meeting: Loaded): Cue[] =>
    meeting.segments.map((segment) => ({ ...segment, videoId: meeting.videoId }));
  const library = bm25Index(loaded.flatMap(cuesOf));
  const meetingIndexes = new Map(loaded.map((meeting) => [meeting.videoId, bm25Index(cuesOf(meeting))]));

  const asks = loaded.flatMap((meeting) =>
    meeting.questions.map((question, at) => ({
      meeting,
      question,
      unrelated: unrelatedTo(meeting.file, at + loaded.indexOf(meeting), loaded),
    })),
  );
  log(
    `asking ${asks.length} questions through GET /search and POST /ai/qa (meeting, organization, unrelated meeting)`,
  );
  const service: Outcome[] = [];
  const baseline: Outcome[] = [];
  // For --details: what was asked, beside the two outcomes (the same index in all three).
  const asked: Array<{
    meeting: string;
    question: string;
    reference: string;
    /** The segments QMSum marks as answering, and where each first-K place opens (null: another meeting). */
    gold: Array<[number, number]>;
    opens: Record<'search' | 'meeting' | 'organization', Array<number | null>>;
  }> = [];
  const latency = { search: [] as number[], qa: [] as number[] };
  const timed = async <T>(into: number[], work: () => Promise<T>) => {
    const started = performance.now();
    const result = await work();
    into.push(performance.now() - started);
    return result;
  };
  await inParallel(asks, async ({ meeting, question, unrelated }) => {
    const query = new URLSearchParams({ q: question.query, organizationId, limit: String(K) });
    const page = await timed(latency.search, () => api<SearchPage>('GET', `/search?${query}`));
    const moments = page.data.flatMap((result) =>
      result.type === 'video' && result.videoId
        ? (result.moments ?? []).map((moment) => ({ ...moment, videoId: result.videoId as string }))
        : [],
    );
    const ask = (videoIds?: string[]) =>
      api<Answer>('POST', '/ai/qa', {
        question: question.query,
        organizationId,
        ...(videoIds ? { videoIds } : {}),
      });
    const inMeeting = await timed(latency.qa, () => ask([meeting.videoId]));
    const inOrganization = await ask();
    const inUnrelated = await ask([unrelated.videoId]);
    const answer = withoutMarkers(inMeeting.answer);
    const opens = (places: Place[]) => opensOf(places, meeting, segmentsOf);
    const opened = {
      search: opens(moments),
      meeting: opens(inMeeting.citations),
      organization: opens(inOrganization.citations),
    };
    service.push({
      searchHit: hits(opened.search, question),
      meetingHit: hits(opened.meeting, question),
      organizationHit: hits(opened.organization, question),
      answered: inMeeting.answered,
      answeredUnrelated: inUnrelated.answered,
      rouge1: rouge1(answer, question.reference),
      answer,
    });

    const ranked = meetingIndexes.get(meeting.videoId)?.search(question.query, K) ?? [];
    const baselineText = baselineAnswer(ranked);
    asked.push({
      meeting: meeting.file,
      question: question.query,
      reference: question.reference,
      gold: question.segmentRanges,
      opens: opened,
    });
    const libraryHit = hits(opens(library.search(question.query, K)), question);
    baseline.push({
      searchHit: libraryHit,
      meetingHit: hits(opens(ranked), question),
      organizationHit: libraryHit,
      answered: ranked.length > 0,
      answeredUnrelated: (meetingIndexes.get(unrelated.videoId)?.search(question.query, 1).length ?? 0) > 0,
      rouge1: rouge1(baselineText, question.reference),
      answer: baselineText,
    });
    if (service.length % 100 === 0) log(`${service.length} / ${asks.length} asked`);
  });
  if (details) {
    const lines = service.map((outcome, at) =>
      JSON.stringify({ ...asked[at], service: outcome, baseline: baseline[at] }),
    );
    writeFileSync(details, `${lines.join('\n')}\n`);
  }

  const share = (outcomes: Outcome[], key: keyof Outcome) =>
    outcomes.filter((outcome) => outcome[key] === true).length / Math.max(outcomes.length, 1);
  const mean = (values: number[]) =>
    values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
  const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
  };
  type Row = {
    name: string;
    measure: (outcomes: Outcome[]) => number;
    format: (v: number) => string;
    target: string;
    met: (v: number) => boolean;
  };
  const fraction = (v: number) => v.toFixed(2);
  const percent = (v: number) => `${(100 * v).toFixed(1)} %`;
  const rows: Row[] = [
    {
      name: `\`GET /search\`, the question as typed: moment hit@${K}, all meetings in one organization`,
      measure: (o) => share(o, 'searchHit'),
      format: fraction,
      target: '≥ 0.55',
      met: (v) => v >= 0.55,
    },
    {
      name: `\`POST /ai/qa\` scoped to the meeting: citation hit@${K}`,
      measure: (o) => share(o, 'meetingHit'),
      format: fraction,
      target: '≥ 0.85',
      met: (v) => v >= 0.85,
    },
    {
      name: `\`POST /ai/qa\` over the whole organization: citation hit@${K}`,
      measure: (o) => share(o, 'organizationHit'),
      format: fraction,
      target: '≥ 0.55',
      met: (v) => v >= 0.55,
    },
    {
      name: 'Answer ROUGE-1 F1 (×100, Porter-stemmed), scoped to the meeting',
      measure: (o) => 100 * mean(o.map((x) => x.rouge1)),
      format: (v) => v.toFixed(2),
      target: '≥ 27',
      met: (v) => v >= 27,
    },
    {
      name: 'In-scope questions answered',
      measure: (o) => share(o, 'answered'),
      format: percent,
      target: '≥ 95 %',
      met: (v) => v >= 0.95,
    },
    {
      name: 'The same questions scoped to an unrelated meeting, answered',
      measure: (o) => share(o, 'answeredUnrelated'),
      format: percent,
      target: '≤ 10 %',
      met: (v) => v <= 0.1,
    },
    {
      name:
        'Answer length, words (reference answers: ' +
        mean(asks.map((a) => words(a.question.reference))).toFixed(0) +
        ')',
      measure: (o) => mean(o.map((x) => words(x.answer))),
      format: (v) => v.toFixed(0),
      target: '—',
      met: () => true,
    },
  ];
  const cpus = os.cpus();
  const text = [
    SECTION_HEADING,
    '',
    `Reproduce with \`npm run eval:qmsum\` (QMSum training meetings; \`--dir\` to point elsewhere). Run ${new Date().toISOString()} ` +
      `on ${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length}, Node ${process.version}, engine \`local\`.`,
    '',
    `Method: ${loaded.length} meetings loaded through \`POST /videos\` into one organization (turns timed in order at ` +
      `150 words a minute); each of their ${asks.length} specific questions with a relevant span is typed into ` +
      `\`GET /search\` and asked through \`POST /ai/qa\` scoped to its meeting, to the whole organization, and to an ` +
      'unrelated meeting (one of another QMSum corpus: academic, product design or parliamentary committee), ' +
      `${PARALLEL} requests at a time. A moment or citation is a hit when the second it opens at falls in a ` +
      'transcript segment of the right meeting that QMSum marks as relevant. ROUGE as rouge-score with ' +
      '`use_stemmer=True` (lower case, `[a-z0-9]` tokens, Porter stemming of tokens over three characters), `[n]` ' +
      'markers removed; an unanswered question is scored on its "I don\'t know" sentence.',
    '',
    'The baseline, measured in the same run over the same transcript segments (`scripts/eval/bm25-baseline.ts`): BM25 ' +
      '(k1 1.2, b 0.75, Porter-stemmed lower-case words) over single cues; search returns the best cues of the whole ' +
      `library as moments; question answering cites the ${K} best cues of the scoped meeting and answers with the best 3 ` +
      'joined and cut to 120 words (it answers whenever any word matches).',
    '',
    '| Measure | service | BM25 baseline | target | met |',
    '| --- | ---: | ---: | ---: | :---: |',
    ...rows.map((row) => {
      const ours = row.measure(service);
      return `| ${row.name} | **${row.format(ours)}** | ${row.format(row.measure(baseline))} | ${row.target} | ${row.target === '—' ? '' : row.met(ours) ? 'yes' : 'no'} |`;
    }),
    '',
    'By corpus, service / baseline. The product-design meetings are four each of many teams given ' +
      'the same brief and the same roles, so a question such as "What did the group discuss about the ' +
      'buttons?" fits many of them, and nothing in its words tells which one its annotator meant:',
    '',
    '| Corpus | meetings | questions | search hit@5 | scoped QA hit@5 | organization QA hit@5 |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...FAMILIES.map((pattern, family) => {
      const of = (outcomes: Outcome[]) => outcomes.filter((_, at) => pattern.test(asked[at]?.meeting ?? ''));
      const pair = (key: keyof Outcome) =>
        `${fraction(share(of(service), key))} / ${fraction(share(of(baseline), key))}`;
      const meetings = loaded.filter((meeting) => pattern.test(meeting.file)).length;
      return `| ${FAMILY_NAMES[family]} | ${meetings} | ${of(service).length} | ${pair('searchHit')} | ${pair('meetingHit')} | ${pair('organizationHit')} |`;
    }),
    '',
    `Latency through HTTP, ${PARALLEL} requests at a time on ${loaded.length} meetings: \`GET /search\` p50 ` +
      `${percentile(latency.search, 0.5).toFixed(0)} ms, p95 ${percentile(latency.search, 0.95).toFixed(0)} ms; ` +
      `\`POST /ai/qa\` scoped to a meeting p50 ${percentile(latency.qa, 0.5).toFixed(0)} ms, p95 ` +
      `${percentile(latency.qa, 0.95).toFixed(0)} ms (the speed targets are measured at 1,000 meetings by \`npm run bench:search\`).`,
    '',
    "The QMSum paper's ROUGE-1 on the same task (specific queries, its test split, Porter stemming), for scale:",
    '',
    '| System | R-1 |',
    '| --- | ---: |',
    ...ANCHORS.map(([system, anchor]) => `| ${system} | ${anchor} |`),
    '',
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  writeFileSync(output, upsertSection(readIfExists(output), SECTION_HEADING, text, AI_QUALITY));
  log(`wrote ${path.relative(process.cwd(), output)}`);
});
