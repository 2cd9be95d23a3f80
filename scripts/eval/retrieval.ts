import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { connectDatabase } from '../../src/db/client.ts';
import { type RetrievalScope, retrieveChunks } from '../../src/modules/search/retrieval.ts';
import { log, ROOT, readIfExists, runBenchmark, signUp, startService, upsertSection } from '../bench/lib.ts';
import {
  answers,
  type QmsumFile,
  type QmsumQuestion,
  qmsumQuestions,
  qmsumTranscript,
} from '../seed/qmsum.ts';

/**
 * `npm run eval:retrieval -- [--dir DIR] [--limit N] [--k 5]`: how well retrieval finds the
 * stretch of a meeting that answers a question. Loads QMSum meetings through the API into a
 * fresh service (embedded PostgreSQL in a temporary directory), then, for every question of the
 * meetings' `specific_query_list`, asks `retrieveChunks` for the top k passages and counts a hit
 * when one of them overlaps a turn range QMSum marks as relevant. Two scopes: the question's own
 * meeting (how the AI layer answers about one video), and every loaded meeting at once (a hit
 * must then also be in the right meeting). Writes the `## Retrieval` section of docs/evaluation.md.
 */

const SECTION_HEADING = '## Retrieval';
const EVALUATION = {
  title: '# Evaluation',
  intro:
    'How well the service finds and answers, measured on real meetings (QMSum, MIT licence; not shipped: ' +
    'point the scripts at a copy with `--dir`). Each evaluation owns one `## ` section and rewrites only it.',
};

function options() {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: path.join(ROOT, '..', 'shared', 'data', 'qmsum', 'train') },
      limit: { type: 'string', default: '1000' },
      k: { type: 'string', default: '5' },
      output: { type: 'string', default: path.join(ROOT, 'docs', 'evaluation.md') },
    },
  });
  const dir = path.resolve(values.dir);
  if (!existsSync(dir)) throw new Error(`no QMSum directory at ${dir} (pass --dir)`);
  return { dir, limit: Number(values.limit), k: Number(values.k), output: path.resolve(values.output) };
}

type Loaded = { file: string; videoId: string; questions: QmsumQuestion[] };

/** The chance that k passages drawn at random include one of `relevant` among `total`. */
function chance(total: number, relevant: number, k: number) {
  if (relevant === 0) return 0;
  let miss = 1;
  for (let i = 0; i < Math.min(k, total); i++) miss *= Math.max(0, total - relevant - i) / (total - i);
  return 1 - miss;
}

const { dir, limit, k, output } = options();

await runBenchmark('eval:retrieval', async ({ dataDir, children }) => {
  const { baseUrl, pgPort } = await startService(dataDir, children);
  const { organizationId, token } = await signUp(baseUrl, { email: 'eval@example.com', name: 'Eval' });

  const files = (await readdir(dir))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .slice(0, limit);
  const loaded: Loaded[] = [];
  log(`loading ${files.length} meetings from ${dir} through POST /videos`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < files.length) {
        const file = files[next++] as string;
        const json = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as QmsumFile;
        const meeting = qmsumTranscript(json, `QMSum ${path.basename(file, '.json')}`);
        if (!meeting) continue;
        const response = await fetch(`${baseUrl}/videos`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({
            organizationId,
            title: meeting.title,
            duration: meeting.duration,
            transcript: meeting.transcript,
          }),
        });
        const body = (await response.json()) as { id: string };
        if (response.status !== 201)
          throw new Error(`POST /videos for ${file}: ${response.status} ${JSON.stringify(body)}`);
        loaded.push({ file, videoId: body.id, questions: qmsumQuestions(json, meeting) });
      }
    }),
  );

  const password = readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  const database = connectDatabase(
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/knowledge_hub`,
    { max: 2 },
  );
  try {
    const timings = { meeting: [] as number[], all: [] as number[] };
    const scopes = {
      meeting: { hits: 0, firstHits: 0, reciprocal: 0, chance: 0 },
      all: { hits: 0, firstHits: 0, reciprocal: 0, chance: 0 },
    };
    let questions = 0;
    for (const meeting of loaded) {
      const chunks = await database.db.execute<{ first: number; last: number }>(
        sql`select first_segment_index as first, last_segment_index as last from transcript_chunks where video_id = ${meeting.videoId}`,
      );
      for (const question of meeting.questions) {
        questions++;
        const relevant = chunks.rows.filter((chunk) =>
          answers({ firstSegmentIndex: chunk.first, lastSegmentIndex: chunk.last }, question),
        ).length;
        scopes.meeting.chance += chance(chunks.rows.length, relevant, k);
        for (const [scopeName, scope] of [
          ['meeting', { organizationIds: [organizationId], videoIds: [meeting.videoId] }],
          ['all', { organizationIds: [organizationId] }],
        ] as Array<['meeting' | 'all', RetrievalScope]>) {
          const started = performance.now();
          const found = await retrieveChunks(database.db, question.query, scope, { limit: k });
          timings[scopeName].push(performance.now() - started);
          const rank = found.findIndex(
            (chunk) => chunk.videoId === meeting.videoId && answers(chunk, question),
          );
          const tally = scopes[scopeName];
          if (rank >= 0) {
            tally.hits++;
            tally.reciprocal += 1 / (rank + 1);
            if (rank === 0) tally.firstHits++;
          }
        }
      }
    }
    const [{ chunks, words }] = (
      await database.db.execute<{ chunks: number; words: number }>(
        sql`select count(*)::int as chunks, coalesce(sum(word_count), 0)::int as words from transcript_chunks`,
      )
    ).rows as [{ chunks: number; words: number }];
    const percent = (value: number) => `${((100 * value) / Math.max(questions, 1)).toFixed(1)} %`;
    const latency = (samples: number[]) => {
      const sorted = [...samples].sort((a, b) => a - b);
      const at = (p: number) =>
        (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0).toFixed(1);
      return `${at(0.5)} / ${at(0.95)}`;
    };
    const mrr = (value: number) => (value / Math.max(questions, 1)).toFixed(3);
    const cpus = os.cpus();
    const text = [
      SECTION_HEADING,
      '',
      `Reproduce with \`npm run eval:retrieval\` (QMSum training meetings, \`--dir\` to point elsewhere). ` +
        `Run ${new Date().toISOString()} on ${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length}, Node ${process.version}.`,
      '',
      `Method: ${loaded.length} meetings (${words.toLocaleString('en-US')} words, ${chunks.toLocaleString('en-US')} passages) loaded through ` +
        `\`POST /videos\`; for each of their ${questions} specific questions (those with a relevant span), \`retrieveChunks\` ` +
        `returns the top ${k} passages; a hit is a passage that overlaps a turn range QMSum marks as relevant (and, ` +
        'across all meetings, belongs to the right meeting). "Chance" is the expected hit rate of ' +
        `${k} passages of the meeting drawn at random.`,
      '',
      `| Scope | hit@${k} | hit@1 | MRR@${k} | chance hit@${k} | retrieval p50 / p95 ms |`,
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      `| The question's meeting | ${percent(scopes.meeting.hits)} | ${percent(scopes.meeting.firstHits)} | ${mrr(scopes.meeting.reciprocal)} | ${percent(scopes.meeting.chance)} | ${latency(timings.meeting)} |`,
      `| All ${loaded.length} meetings | ${percent(scopes.all.hits)} | ${percent(scopes.all.firstHits)} | ${mrr(scopes.all.reciprocal)} | — | ${latency(timings.all)} |`,
      '',
    ].join('\n');
    process.stdout.write(`\n${text}\n`);
    writeFileSync(output, upsertSection(readIfExists(output), SECTION_HEADING, text, EVALUATION));
    log(`wrote ${path.relative(process.cwd(), output)}`);
  } finally {
    await database.close();
  }
});
