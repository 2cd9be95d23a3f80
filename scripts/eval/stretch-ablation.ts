import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { stemmer } from 'stemmer';
import { focusWordsOf, idf, questionWeights } from '../../src/modules/search/question-terms.ts';
import {
  EVEN_NEIGHBOURS,
  rankStretches,
  STRETCH_DEFAULTS,
  type TermTurn,
} from '../../src/modules/search/stretches.ts';
import { ROOT } from '../bench/lib.ts';
import { type QmsumFile, qmsumQuestions, qmsumTranscript } from '../seed/qmsum.ts';

/**
 * `node scripts/eval/stretch-ablation.ts [--dir DIR]`: what each idea of the stretch ranking adds,
 * in process and in seconds (no database: words are Porter-stemmed, stop words are NLTK's english
 * list, close to PostgreSQL's), on QMSum's specific questions scoped to their meeting. A hit: the best turn of
 * one of the first five stretches lies in a span QMSum marks as relevant; for the ranking as built,
 * also among the first 1 to 20 (what reordering the first stretches could gain). The figures in
 * docs/search.md and docs/ai-quality.md come from this script; the service stems with
 * PostgreSQL, so its own figures (npm run eval:qmsum) differ a little.
 */

const { values } = parseArgs({
  options: { dir: { type: 'string', default: path.join(ROOT, '..', 'shared', 'data', 'qmsum', 'train') } },
});
const STOP = new Set(
  'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now'.split(
    ' ',
  ),
);
const stem = (text: string) =>
  (text.toLowerCase().match(/[a-z0-9']+/g) ?? [])
    .map((word) => word.replace(/'.*$/, ''))
    .filter((word) => word && !STOP.has(word))
    .map(stemmer);
const FRAMING = new Set(
  stem(
    'summarize summary discuss discussion talk talking think thought say said mention opinion elaborate agree disagree group meeting team',
  ),
);

type Meeting = { turns: TermTurn[]; questions: Array<{ query: string; ranges: Array<[number, number]> }> };

function load(dir: string): Meeting[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => {
      const json = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as QmsumFile;
      const meeting = qmsumTranscript(json, file);
      if (!meeting) return [];
      const turns = meeting.transcript.split('\n').map((line, index): TermTurn => {
        const [, speaker = '', text = ''] = line.match(/^\[[\d:]+\] ([^:]+): (.*)$/) ?? [];
        const terms = new Map<string, number>();
        for (const term of stem(text)) terms.set(term, (terms.get(term) ?? 0) + 1);
        return {
          videoId: file,
          index,
          start: index,
          end: index + 1,
          speaker,
          text,
          terms,
          length: text.split(' ').length,
        };
      });
      const questions = qmsumQuestions(json, meeting).map((question) => ({
        query: question.query,
        ranges: question.segmentRanges,
      }));
      return [{ turns, questions }];
    });
}

const meetings = load(path.resolve(values.dir));
const plain = {
  ...STRETCH_DEFAULTS,
  neighbourWeights: { before: [], after: [] },
  regionWeight: 0,
  speakerBoost: 1,
  b: 0.75,
};
/** How a step reads the question: its words alone, as question-terms.ts weighs them, and with its matter (focusWordsOf). */
type Reading = 'words' | 'question' | 'matter';
const steps: Array<[string, typeof STRETCH_DEFAULTS, Reading]> = [
  ['BM25 over single turns (k1 1.2, b 0.75)', plain, 'words'],
  ['+ neighbours (½, ¼ on either side)', { ...plain, neighbourWeights: EVEN_NEIGHBOURS }, 'words'],
  [
    '+ framing words light, named speakers as a filter, b 0.3',
    { ...STRETCH_DEFAULTS, neighbourWeights: EVEN_NEIGHBOURS, regionWeight: 0 },
    'question',
  ],
  [
    '+ region (share of the question said within 20 turns)',
    { ...STRETCH_DEFAULTS, neighbourWeights: EVEN_NEIGHBOURS },
    'question',
  ],
  ['+ the turns before weigh more (¾, 0.4 before; ¼, 0.1 after)', STRETCH_DEFAULTS, 'question'],
  [
    '+ its other words half as heavy when it names its matter ("about the buttons")',
    STRETCH_DEFAULTS,
    'matter',
  ],
];
/** Depth to which the last step's first hit is looked for: how much a reranker of the first stretches could gain. */
const DEPTHS = [1, 3, 5, 10, 20];
for (const [name, options, reading] of steps) {
  const last = name === steps.at(-1)?.[0];
  const firstHits: number[] = [];
  let questions = 0;
  let hits = 0;
  for (const meeting of meetings) {
    const holding = new Map<string, number>();
    for (const turn of meeting.turns)
      for (const term of turn.terms.keys()) holding.set(term, (holding.get(term) ?? 0) + 1);
    const weight = (term: string) => idf(meeting.turns.length, holding.get(term) ?? 0);
    const speakers = [...new Set(meeting.turns.map((turn) => turn.speaker ?? ''))].map((label) => ({
      name: label,
      lexemes: stem(label),
    }));
    for (const question of meeting.questions) {
      questions++;
      const lexemes = [...new Set(stem(question.query))];
      const focus = new Set(reading === 'matter' ? stem(focusWordsOf(question.query)) : []);
      const weights =
        reading === 'words'
          ? { weights: new Map(lexemes.map((term) => [term, weight(term)])) }
          : questionWeights({
              question: question.query,
              lexemes,
              framing: FRAMING,
              focus,
              speakers,
              idf: weight,
            });
      const stretches = rankStretches(meeting.turns, weights, last ? Math.max(...DEPTHS) : 5, options);
      const first = stretches.findIndex((stretch) =>
        question.ranges.some(([a, b]) => stretch.bestIndex >= a && stretch.bestIndex <= b),
      );
      if (first >= 0 && first < 5) hits++;
      if (first >= 0) firstHits.push(first);
    }
  }
  process.stdout.write(`${(hits / questions).toFixed(3)}  ${name} (${questions} questions)\n`);
  if (last)
    process.stdout.write(
      `       the same, a hit among the first ${DEPTHS.map(
        (depth) => `${depth}: ${(firstHits.filter((at) => at < depth).length / questions).toFixed(3)}`,
      ).join(', ')}\n`,
    );
}
