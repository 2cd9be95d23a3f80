import { existsSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { rouge } from '../../src/lib/rouge.ts';
import type { Extraction, TranscriptTurn } from '../../src/modules/knowledge/extraction.ts';
import { createLocalExtractor } from '../../src/modules/knowledge/local-extractor.ts';
import { parseTranscript } from '../../src/modules/transcripts/parse.ts';
import { AI_QUALITY, log, ROOT, readIfExists, upsertSection } from '../bench/lib.ts';
import { type QmsumFile, qmsumTranscript } from '../seed/qmsum.ts';

/**
 * `npm run eval:knowledge -- [--dir DIR] [--limit N]`: what the local extractor makes of QMSum
 * meetings, measured where QMSum has gold answers — the whole-meeting summary (ROUGE against the
 * answer to its first general query, "Summarize the meeting", next to a lead baseline of the same length) and the
 * topic segmentation (Pk against QMSum's topic spans, next to trivial segmentations) — plus how long
 * extraction takes and how much it finds. Writes the `## Knowledge extraction` section of
 * docs/ai-quality.md. Runs in-process: the extractor needs no database.
 */

const SECTION_HEADING = '## Knowledge extraction';
/** A fixed date: relative due dates ("by Friday") resolve the same way on every run. */
const MEETING_DATE = new Date('2026-03-02T10:00:00Z');

type Scored = {
  file: string;
  words: number;
  milliseconds: number;
  extraction: Extraction;
  summary?: { ours: ReturnType<typeof rouge>; lead: ReturnType<typeof rouge>; words: number };
  segmentation?: { ours: number; none: number; even: number; gold: number; found: number };
  topicRecall?: number;
};

function options() {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: path.join(ROOT, '..', 'shared', 'data', 'qmsum', 'train') },
      limit: { type: 'string', default: '1000' },
      output: { type: 'string', default: path.join(ROOT, 'docs', 'ai-quality.md') },
    },
  });
  const dir = path.resolve(values.dir);
  if (!existsSync(dir)) throw new Error(`no QMSum directory at ${dir} (pass --dir)`);
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a whole number above 0');
  return { dir, limit, output: values.output };
}

/**
 * Pk (Beeferman et al.): the share of position pairs k apart that the hypothesis wrongly puts in
 * the same or in different segments; k is half the mean gold segment length. Lower is better;
 * segments are given as the index of the segment each position belongs to.
 */
function pk(gold: number[], hypothesis: number[]): number {
  const segments = new Set(gold).size;
  const k = Math.max(1, Math.round(gold.length / segments / 2));
  let errors = 0;
  let pairs = 0;
  for (let at = 0; at + k < gold.length; at++) {
    const sameGold = gold[at] === gold[at + k];
    const sameHypothesis = hypothesis[at] === hypothesis[at + k];
    if (sameGold !== sameHypothesis) errors++;
    pairs++;
  }
  return pairs === 0 ? 0 : errors / pairs;
}

/** Content words of a label, crudely normalised (plural s dropped) for overlap. */
const labelWords = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z]+/)
      .filter((word) => word.length > 3)
      .map((word) => word.replace(/s$/, '')),
  );

async function evaluate(file: string, json: QmsumFile & Record<string, unknown>): Promise<Scored | null> {
  const meeting = qmsumTranscript(json, path.basename(file, '.json'));
  if (!meeting) return null;
  const { segments } = await parseTranscript(meeting.transcript, {});
  const turns: TranscriptTurn[] = segments.map((segment) => ({
    index: segment.index,
    start: segment.start,
    end: segment.end,
    speaker: segment.speaker,
    text: segment.text,
  }));
  const extractor = createLocalExtractor();
  const started = performance.now();
  const extraction = await extractor.extract({ title: meeting.title, turns, meetingDate: MEETING_DATE });
  const milliseconds = performance.now() - started;
  const scored: Scored = { file, words: meeting.words, milliseconds, extraction };

  // The first general query asks for the meeting's summary ("Summarize the meeting", "What was the meeting about?").
  const general = (json.general_query_list as Array<{ query: string; answer: string }> | undefined)?.[0];
  if (general) {
    const ours = extraction.summary.map((sentence) => sentence.text).join(' ');
    const length = ours.split(/\s+/).filter(Boolean).length;
    const lead = turns
      .map((turn) => turn.text)
      .join(' ')
      .split(/\s+/)
      .slice(0, length)
      .join(' ');
    scored.summary = { ours: rouge(ours, general.answer), lead: rouge(lead, general.answer), words: length };
  }

  const topicList = json.topic_list as
    | Array<{ topic: string; relevant_text_span: Array<[string, string]> }>
    | undefined;
  if (topicList && topicList.length > 1 && turns.length > 0) {
    // Gold: each segment takes the topic whose turn span holds its turn (the latest one wins).
    const goldOfSegment = new Array<number>(turns.length).fill(0);
    topicList.forEach((topic, topicIndex) => {
      for (const [from, to] of topic.relevant_text_span) {
        for (let turn = Number(from); turn <= Number(to); turn++) {
          const segment = meeting.segmentOfTurn[turn];
          if (segment !== null && segment !== undefined) goldOfSegment[segment] = topicIndex;
        }
      }
    });
    // Gold topics as contiguous runs, so that a topic coming back counts as a new segment.
    const gold: number[] = [];
    let run = 0;
    goldOfSegment.forEach((topic, at) => {
      if (at > 0 && topic !== goldOfSegment[at - 1]) run++;
      gold.push(run);
    });
    const chapterOf = (segment: TranscriptTurn) =>
      Math.max(
        0,
        extraction.chapters.findLastIndex((chapter) => chapter.start <= segment.start + 1e-6),
      );
    const ours = turns.map(chapterOf);
    const goldCount = run + 1;
    const even = turns.map((_, at) => Math.floor((at * goldCount) / turns.length));
    scored.segmentation = {
      ours: pk(gold, ours),
      none: pk(gold, new Array(turns.length).fill(0)),
      even: pk(gold, even),
      gold: goldCount,
      found: extraction.chapters.length,
    };
    const ourWords = new Set(
      extraction.topics.flatMap((topic) => [
        ...labelWords(topic.name),
        ...topic.keywords.flatMap((word) => [...labelWords(word)]),
      ]),
    );
    const labels = topicList.map((topic) => labelWords(topic.topic)).filter((words) => words.size > 0);
    scored.topicRecall =
      labels.filter((words) => [...words].some((word) => ourWords.has(word))).length /
      Math.max(labels.length, 1);
  }
  return scored;
}

const mean = (values: number[]) =>
  values.reduce((total, value) => total + value, 0) / Math.max(values.length, 1);
const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
};
const fixed = (value: number, digits = 2) => value.toFixed(digits);

async function main() {
  const { dir, limit, output } = options();
  const files = (await readdir(dir))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .slice(0, limit);
  const loadStarted = performance.now();
  // The first extraction loads the language model: measured apart, on a short text.
  await createLocalExtractor().extract({
    title: 'warm-up',
    turns: [{ index: 0, start: 0, end: 5, speaker: 'A', text: 'We decided to start the project next week.' }],
    meetingDate: MEETING_DATE,
  });
  const loadMilliseconds = performance.now() - loadStarted;
  const results: Scored[] = [];
  for (const file of files) {
    const json = JSON.parse(await readFile(path.join(dir, file), 'utf8'));
    const scored = await evaluate(file, json);
    if (scored) results.push(scored);
    if (results.length % 20 === 0) log(`${results.length} meetings extracted`);
  }

  const summaries = results.flatMap((result) => (result.summary ? [result.summary] : []));
  const segmentations = results.flatMap((result) => (result.segmentation ? [result.segmentation] : []));
  const recalls = results.flatMap((result) => (result.topicRecall !== undefined ? [result.topicRecall] : []));
  const count = (kind: string) =>
    mean(results.map((result) => result.extraction.items.filter((item) => item.kind === kind).length));
  const questions = results.flatMap((result) =>
    result.extraction.items.filter((item) => item.kind === 'question'),
  );
  const actionItems = results.flatMap((result) =>
    result.extraction.items.filter((item) => item.kind === 'action_item'),
  );
  const times = results.map((result) => result.milliseconds);
  const rougeRow = (name: string, pick: (summary: (typeof summaries)[number]) => ReturnType<typeof rouge>) =>
    `| ${name} | ${fixed(mean(summaries.map((summary) => pick(summary).rouge1.f1 * 100)))} | ` +
    `${fixed(mean(summaries.map((summary) => pick(summary).rouge2.f1 * 100)))} | ` +
    `${fixed(mean(summaries.map((summary) => pick(summary).rougeL.f1 * 100)))} |`;
  const sample = results[0]?.extraction;
  const cpus = os.cpus();

  const text = [
    SECTION_HEADING,
    '',
    `Reproduce with \`npm run eval:knowledge\` (\`--dir\`, \`--limit\`). Run ${new Date().toISOString()} on ` +
      `${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length}, Node ${process.version}, extractor \`local\`, ` +
      `${results.length} QMSum training meetings (${Math.round(mean(results.map((result) => result.words)))} words on average), ` +
      'each extracted in-process from its transcript as `POST /videos` would store it.',
    '',
    `**Speed**: model load ${Math.round(loadMilliseconds)} ms once per process; then per meeting p50 ` +
      `${Math.round(percentile(times, 0.5))} ms, p95 ${Math.round(percentile(times, 0.95))} ms, max ${Math.round(Math.max(...times))} ms.`,
    '',
    `**Summary** against the reference answer of QMSum's first general query ("Summarize the meeting" and the like; ${summaries.length} meetings; ROUGE F1 ×100 as in ` +
      `the QA evaluation, no stemming; ours ${Math.round(mean(summaries.map((summary) => summary.words)))} words on average, ` +
      "the lead baseline is the transcript's first words of the same length):",
    '',
    '| Summary | R-1 | R-2 | R-L |',
    '| --- | ---: | ---: | ---: |',
    rougeRow('Extracted summary', (summary) => summary.ours),
    rougeRow('Lead baseline', (summary) => summary.lead),
    '',
    `**Chapters** against QMSum's topic spans (${segmentations.length} meetings; Pk, lower is better; gold ` +
      `${fixed(mean(segmentations.map((row) => row.gold)), 1)} segments per meeting, ours ` +
      `${fixed(mean(segmentations.map((row) => row.found)), 1)}):`,
    '',
    '| Segmentation | Pk |',
    '| --- | ---: |',
    `| Extracted chapters | ${fixed(mean(segmentations.map((row) => row.ours)), 3)} |`,
    `| One chapter | ${fixed(mean(segmentations.map((row) => row.none)), 3)} |`,
    `| Even split into the gold number of chapters | ${fixed(mean(segmentations.map((row) => row.even)), 3)} |`,
    '',
    `**Topics**: ${fixed(mean(recalls) * 100, 1)} % of QMSum's topic labels share a content word with the meeting's ` +
      'extracted topics or their keywords (a loose recall: labels are phrases like "Discussion on favourite animals").',
    '',
    `**Items per meeting** (no gold labels in QMSum: counts, not accuracy): decisions ${fixed(count('decision'), 1)}, ` +
      `action items ${fixed(count('action_item'), 1)} (${fixed((actionItems.filter((item) => item.owner).length / Math.max(actionItems.length, 1)) * 100, 0)} % with an owner, ` +
      `${fixed((actionItems.filter((item) => item.dueDate).length / Math.max(actionItems.length, 1)) * 100, 0)} % with a due date), ` +
      `questions ${fixed(count('question'), 1)} (${fixed((questions.filter((item) => item.answered).length / Math.max(questions.length, 1)) * 100, 0)} % answered in the meeting), ` +
      `topics ${fixed(mean(results.map((result) => result.extraction.topics.length)), 1)}.`,
    '',
    ...(sample
      ? [
          `Example — ${results[0]?.file}: topics ${sample.topics.map((topic) => `"${topic.name}"`).join(', ')}; chapters ` +
            `${sample.chapters.map((chapter) => `"${chapter.title}"`).join(', ')}; first decisions: ` +
            `${sample.items
              .filter((item) => item.kind === 'decision')
              .slice(0, 3)
              .map((item) => `"${item.text}"`)
              .join(' · ')}.`,
          '',
        ]
      : []),
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  writeFileSync(output, upsertSection(readIfExists(output), SECTION_HEADING, text, AI_QUALITY));
  log(`wrote ${path.relative(process.cwd(), output)}`);
}

try {
  await main();
} catch (error) {
  process.stderr.write(`\nEvaluation failed: ${(error as Error).message}\n`);
  process.exit(1);
}
