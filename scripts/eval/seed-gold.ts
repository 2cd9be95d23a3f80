import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AI_QUALITY, log, ROOT, readIfExists, upsertSection } from '../bench/lib.ts';
import { type KindScore, scoreSeedGold } from './gold-score.ts';

/**
 * `npm run eval:seed-gold`: the local extractor against the hand-labelled gold set of the seven
 * demo meetings (`scripts/seed/gold.ts`), beside the targets. Writes the `## Seed gold set`
 * section of docs/ai-quality.md. Needs no QMSum copy: the meetings ship with the project.
 */

const SECTION_HEADING = '## Seed gold set: decisions, action items, questions, conflicts';
const TARGET = { recall: 0.9, precision: 0.8 };

const { values } = parseArgs({
  options: { output: { type: 'string', default: path.join(ROOT, 'docs', 'ai-quality.md') } },
});

const fixed = (value: number) => value.toFixed(2);
const met = (recall: number, precision: number) =>
  recall >= TARGET.recall && precision >= TARGET.precision ? 'yes' : 'no';
const row = (name: string, score: KindScore, target: string, isMet: string) =>
  `| ${name} | ${score.gold} | ${score.found} | ${fixed(score.precision)} | ${fixed(score.recall)} | ${target} | ${isMet} |`;
const listed = (entries: { file: string; line: number; says?: string; text?: string }[]) =>
  entries.length === 0
    ? 'none'
    : entries.map((entry) => `${entry.file}:${entry.line} "${entry.says ?? entry.text}"`).join('; ');

const report = await scoreSeedGold();
const cpus = os.cpus();
const { decisions, actionItems, questions, combined, conflicts } = report;
const text = [
  SECTION_HEADING,
  '',
  `Reproduce with \`npm run eval:seed-gold\`; \`test/seed-gold.test.ts\` fails when these fall below the targets. Run ${new Date().toISOString()} on ${cpus[0]?.model.trim() ?? 'unknown CPU'} × ${cpus.length}, Node ${process.version}, extractor \`local\`.`,
  '',
  `Method: the ${report.meetings} demo meetings of \`npm run seed\` (\`scripts/seed/meetings/\`), labelled by hand in \`scripts/seed/gold.ts\` (line numbers of the files, one speaker turn per line). A found item is right when a gold item of its kind is said on its line; a gold item is found when any of its lines yields one (an action item read out twice counts once). Owner and due date are checked on the action items found. Conflicts are scored through the rules of \`GET /ai/gaps/conflicts\` over the decisions and answers extracted.`,
  '',
  '| Kind | gold | found | precision | recall | target | met |',
  '| --- | ---: | ---: | ---: | ---: | --- | :---: |',
  row('Decisions', decisions, '', ''),
  row('Action items', actionItems, '', ''),
  `| **Decisions and action items** | ${decisions.gold + actionItems.gold} | ${decisions.found + actionItems.found} | **${fixed(combined.precision)}** | **${fixed(combined.recall)}** | recall ≥ ${TARGET.recall}, precision ≥ ${TARGET.precision} | ${met(combined.recall, combined.precision)} |`,
  row('Questions', questions, '—', ''),
  '',
  `Action items found: owner right ${actionItems.owner.right} of ${actionItems.owner.of}, due date right ${actionItems.due.right} of ${actionItems.due.of}. Questions found: whether the meeting answered them (or left them open) right ${questions.answered.right} of ${questions.answered.of}${questions.answered.wrong.length > 0 ? ` (wrong: ${listed(questions.answered.wrong)})` : ''}. Conflicts between meetings: ${conflicts.detected.length} of ${conflicts.gold} found (${conflicts.detected.join(', ') || 'none'}), ${conflicts.found - conflicts.detected.length} found that are not in the gold set.`,
  '',
  `Missed: decisions — ${listed(decisions.missed)}; action items — ${listed(actionItems.missed)}; questions — ${listed(questions.missed)}.`,
  '',
  `Wrong: ${listed([...decisions.wrong, ...actionItems.wrong, ...questions.wrong])}.`,
  '',
].join('\n');

writeFileSync(values.output, upsertSection(readIfExists(values.output), SECTION_HEADING, text, AI_QUALITY));
log(`wrote ${path.relative(process.cwd(), values.output)}`);
