import { existsSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { rouge } from '../../src/lib/rouge.ts';
import { splitSentences } from '../../src/modules/ai/sentences.ts';
import {
  apiFor,
  log,
  ROOT,
  readIfExists,
  runBenchmark,
  signUp,
  startService,
  upsertSection,
} from '../bench/lib.ts';
import {
  type QmsumFile,
  type QmsumMeeting,
  type QmsumQuestion,
  qmsumQuestions,
  qmsumTranscript,
} from '../seed/qmsum.ts';

/**
 * `npm run eval:qmsum -- [--dir DIR] [--limit N] [--scope meeting|organization|both]`: how well
 * `POST /ai/qa` answers QMSum's specific questions. Loads the meetings through `POST /videos` into a
 * fresh service (embedded PostgreSQL in a temporary directory, local engine), asks every specific
 * question that has a relevant span, and measures citation hit@5 against the gold spans and
 * ROUGE-1/2/L F1 of the answers against the reference answers. Writes the
 * `## QMSum question answering` section of docs/ai-quality.md.
 */

const SECTION_HEADING = '## QMSum question answering';
const AI_QUALITY = {
  title: '# AI quality',
  intro:
    'How well the AI features answer, measured on real meetings (QMSum, MIT licence; not shipped: point the ' +
    'scripts at a copy with `--dir`). Each evaluation owns one `## ` section and rewrites only it.',
};
const K = 5;
const PARALLEL = 4;
/** The QMSum paper's ROUGE-1 on its specific-query task (test set), for comparison. */
const ANCHORS = [
  ['TextRank', '16.27'],
  ['BART', '29.20'],
  ['Best system (locator + summarizer)', '32.29'],
  ['Extractive oracle', '42.84'],
] as const;
const TARGET_R1 = 30;

type Scope = 'meeting' | 'organization';

function options() {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: path.join(ROOT, '..', 'shared', 'data', 'qmsum', 'train') },
      limit: { type: 'string', default: '1000' },
      scope: { type: 'string', default: 'meeting' },
      output: { type: 'string', default: path.join(ROOT, 'docs', 'ai-quality.md') },
      details: { type: 'string' },
    },
  });
  const dir = path.resolve(values.dir);
  if (!existsSync(dir)) throw new Error(`no QMSum directory at ${dir} (pass --dir)`);
  const scopes: Record<string, Scope[]> = {
    meeting: ['meeting'],
    organization: ['organization'],
    both: ['meeting', 'organization'],
  };
  const scope = scopes[values.scope];
  if (!scope) throw new Error('--scope must be meeting, organization or both');
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a whole number above 0');
  return {
    dir,
    limit,
    scopes: scope,
    output: path.resolve(values.output),
    details: values.details ? path.resolve(values.details) : undefined,
  };
}

type Segment = { index: number; start: number; end: number; text: string };
type Question = QmsumQuestion & { reference: string };
type Loaded = { file: string; videoId: string; segments: Segment[]; questions: Question[] };
type Citation = { videoId: string; start: number; end: number; quote: string };
type Answer = { answer: string; answered: boolean; citations: Citation[] };
type Outcome = {
  scope: Scope;
  file: string;
  query: string;
  answered: boolean;
  hit: boolean;
  answer: string;
  reference: string;
  rouge: [number, number, number];
  ms: number;
};

/** The specific questions that have a relevant span, each with QMSum's reference answer. */
function questionsOf(json: QmsumFile, meeting: QmsumMeeting): Question[] {
  const items = (json.specific_query_list ?? []) as Array<{ query: string; answer?: unknown }>;
  return items.flatMap((item) =>
    qmsumQuestions({ specific_query_list: [item] }, meeting).map((question) => ({
      ...question,
      reference: String(item.answer ?? ''),
    })),
  );
}

/**
 * The transcript segment a citation quotes: the one whose time holds the citation's midpoint.
 * The local engine cites sentences, each a slice of one segment's time, so this is exact; the
 * quote is checked against the segment's text to prove it.
 */
function citedSegment(segments: Segment[], citation: Citation): Segment | undefined {
  const middle = (citation.start + citation.end) / 2;
  let low = 0;
  let high = segments.length - 1;
  let found: Segment | undefined;
  while (low <= high) {
    const at = (low + high) >> 1;
    const segment = segments[at] as Segment;
    if (segment.start <= middle) {
      found = segment;
      low = at + 1;
    } else high = at - 1;
  }
  return found && middle <= found.end ? found : undefined;
}

/**
 * What an extractive answer could score had it found the gold span: its first `words` words, and
 * a greedy oracle (add the span sentence that most raises ROUGE-1 F1 until none does), the
 * sentences cut as the local engine cuts them. Calibrates this ROUGE variant against the paper's
 * extractive oracle and bounds what sentence picking alone can reach.
 */
function ceilings(meeting: Loaded, question: Question, words: number) {
  const sentences = meeting.segments
    .filter((segment) =>
      question.segmentRanges.some(([first, last]) => segment.index >= first && segment.index <= last),
    )
    .flatMap((segment) => splitSentences(segment).map((sentence) => sentence.text));
  const lead = sentences.join(' ').split(/\s+/).slice(0, words).join(' ');
  const chosen: string[] = [];
  let best = 0;
  for (;;) {
    let pick: string | undefined;
    for (const sentence of sentences) {
      if (chosen.includes(sentence)) continue;
      const f1 = rouge([...chosen, sentence].join(' '), question.reference).rouge1.f1;
      if (f1 > best) [best, pick] = [f1, sentence];
    }
    if (pick === undefined) break;
    chosen.push(pick);
  }
  return { lead: rouge(lead, question.reference).rouge1.f1, oracle: best };
}

/** `[n]` citation markers are links, not words of the answer. */
const withoutMarkers = (answer: string) =>
  answer
    .replace(/\s*\[\d+\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

const { dir, limit, scopes, output, details } = options();

await runBenchmark('eval:qmsum', async ({ dataDir, children }) => {
  const { baseUrl } = await startService(dataDir, children, {
    AI_PROVIDER: 'local',
    AI_MONTHLY_CREDITS: '1000000000',
  });
  const { organizationId, token } = await signUp(baseUrl, { email: 'eval@example.com', name: 'Eval' });
  const api = apiFor(baseUrl, token);

  const files = (await readdir(dir))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .slice(0, limit);
  const loaded: Loaded[] = [];
  log(`loading ${files.length} meetings from ${dir} through POST /videos`);
  const inParallel = async <T>(items: T[], work: (item: T) => Promise<void>) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < items.length) await work(items[next++] as T);
      }),
    );
  };
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

  const asks = scopes.flatMap((scope) =>
    loaded.flatMap((meeting) => meeting.questions.map((question) => ({ scope, meeting, question }))),
  );
  log(`asking ${asks.length} questions through POST /ai/qa (${scopes.join(' and ')} scope)`);
  const outcomes: Outcome[] = [];
  let unmatchedQuotes = 0;
  await inParallel(asks, async ({ scope, meeting, question }) => {
    const started = performance.now();
    const result = await api<Answer>('POST', '/ai/qa', {
      question: question.query,
      organizationId,
      ...(scope === 'meeting' ? { videoIds: [meeting.videoId] } : {}),
    });
    const ms = performance.now() - started;
    const hit = result.citations.slice(0, K).some((citation) => {
      const segment = citedSegment(segmentsOf.get(citation.videoId) ?? [], citation);
      if (!segment?.text.includes(citation.quote)) unmatchedQuotes++;
      return (
        citation.videoId === meeting.videoId &&
        segment !== undefined &&
        question.segmentRanges.some(([first, last]) => segment.index >= first && segment.index <= last)
      );
    });
    const answer = withoutMarkers(result.answer);
    const scores = rouge(answer, question.reference);
    outcomes.push({
      scope,
      file: meeting.file,
      query: question.query,
      answered: result.answered,
      hit,
      answer,
      reference: question.reference,
      rouge: [scores.rouge1.f1, scores.rouge2.f1, scores.rougeL.f1],
      ms,
    });
    if (outcomes.length % 100 === 0) log(`${outcomes.length} / ${asks.length} answered`);
  });
  if (unmatchedQuotes > 0) log(`warning: ${unmatchedQuotes} citations did not map to a segment quoting them`);
  if (details) writeFileSync(details, `${outcomes.map((outcome) => JSON.stringify(outcome)).join('\n')}\n`);

  const mean = (values: number[]) =>
    values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
  const percent = (value: number) => `${(100 * value).toFixed(1)} %`;
  const rougeCells = (rows: Outcome[]) =>
    [0, 1, 2].map((at) => (100 * mean(rows.map((row) => row.rouge[at] as number))).toFixed(2)).join(' | ');
  const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
  const latency = (rows: Outcome[]) => {
    const sorted = rows.map((row) => row.ms).sort((a, b) => a - b);
    const at = (p: number) =>
      (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0).toFixed(0);
    return `${at(0.5)} / ${at(0.95)}`;
  };
  const scopeName = (scope: Scope) =>
    scope === 'meeting' ? "The question's meeting" : `All ${loaded.length} meetings`;
  const rows = scopes.map((scope) => {
    const all = outcomes.filter((outcome) => outcome.scope === scope);
    const answered = all.filter((outcome) => outcome.answered);
    return { scope, all, answered };
  });
  const meetingRow = rows[0] as (typeof rows)[number];
  const r1 = 100 * mean(meetingRow.all.map((row) => row.rouge[0]));
  const references = loaded.flatMap((meeting) => meeting.questions.map((question) => question.reference));
  const referenceWords = Math.round(mean(references.map(words)));
  const bounds = loaded.flatMap((meeting) =>
    meeting.questions.map((question) => ceilings(meeting, question, referenceWords)),
  );
  const ceiling = (key: 'lead' | 'oracle') => (100 * mean(bounds.map((bound) => bound[key]))).toFixed(2);
  const cpus = os.cpus();
  const text = [
    SECTION_HEADING,
    '',
    'Reproduce with `npm run eval:qmsum` (QMSum training meetings; `--dir` to point elsewhere, `--scope both` ' +
      `to add the whole-library scope). Run ${new Date().toISOString()} on ${cpus[0]?.model.trim() ?? 'unknown CPU'} ` +
      `× ${cpus.length}, Node ${process.version}, engine \`local\`.`,
    '',
    `Method: ${loaded.length} meetings loaded through \`POST /videos\` (turns timed in order at 150 words a minute); ` +
      `each of their ${references.length} specific questions with a relevant span is asked through \`POST /ai/qa\`, ` +
      `${PARALLEL} at a time, scoped to its meeting (\`videoIds: [it]\`, the QMSum setting) or to the whole organization.`,
    '',
    `- **Citation hit@${K}**: one of the first ${K} citations quotes a transcript segment inside a span QMSum marks ` +
      'as relevant (and is in the right meeting). A citation is mapped to the segment whose time (from ' +
      '`GET /videos/{id}/transcript`) holds its midpoint — exact, since the local engine cites sentences of one segment, ' +
      `and checked: ${unmatchedQuotes} citation quotes were not found in the segment they mapped to. An unanswered ` +
      'question has no citations: a miss.',
    "- **ROUGE F1** (×100, mean over questions) of the answer, `[n]` markers removed, against QMSum's reference " +
      "answer: tokenized as rouge-score's defaults (lower-case, non-alphanumerics as spaces), **no stemming**; " +
      'ROUGE-L is the sentence-agnostic LCS over all tokens (rouge-score `rougeL`, not `rougeLsum`). An unanswered ' +
      'question is scored on its "I don\'t know" sentence; the "answered only" row leaves those out.',
    '',
    `| Scope | questions | answered | citation hit@${K} | R-1 | R-2 | R-L | answer / reference words | p50 / p95 ms |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.flatMap(({ scope, all, answered }) => [
      `| ${scopeName(scope)} | ${all.length} | ${percent(answered.length / Math.max(all.length, 1))} | ` +
        `${percent(all.filter((row) => row.hit).length / Math.max(all.length, 1))} | ${rougeCells(all)} | ` +
        `${mean(all.map((row) => words(row.answer))).toFixed(0)} / ${mean(references.map(words)).toFixed(0)} | ${latency(all)} |`,
      `| ${scopeName(scope)}, answered only | ${answered.length} | — | ` +
        `${percent(answered.filter((row) => row.hit).length / Math.max(answered.length, 1))} | ${rougeCells(answered)} | ` +
        `${mean(answered.map((row) => words(row.answer))).toFixed(0)} / ${mean(answered.map((row) => words(row.reference))).toFixed(0)} | — |`,
    ]),
    '',
    "The QMSum paper's figures on the same task (specific queries, its test split, ROUGE with Porter stemming):",
    '',
    '| System | R-1 |',
    '| --- | ---: |',
    ...ANCHORS.map(([system, r1Anchor]) => `| ${system} | ${r1Anchor} |`),
    '',
    `Ceilings on these questions with this metric, had the engine found the gold span: its first ${referenceWords} ` +
      `words (the mean reference length) score ${ceiling('lead')} R-1; a greedy oracle of its sentences ` +
      `${ceiling('oracle')} R-1 (the paper's extractive oracle: 42.84).`,
    '',
    `Target ≥ ${TARGET_R1} R-1 (${scopeName(meetingRow.scope).toLowerCase()}, all questions): ` +
      `${r1 >= TARGET_R1 ? 'reached' : 'not reached'} (${r1.toFixed(2)}).`,
    '',
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  writeFileSync(output, upsertSection(readIfExists(output), SECTION_HEADING, text, AI_QUALITY));
  log(`wrote ${path.relative(process.cwd(), output)}`);
});
