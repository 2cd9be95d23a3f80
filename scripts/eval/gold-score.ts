import { readFile } from 'node:fs/promises';
import { findDisagreements, type Statement } from '../../src/modules/ai/conflicts-rules.ts';
import type { ExtractedItem, ItemKind } from '../../src/modules/knowledge/extraction.ts';
import { extractLocally } from '../../src/modules/knowledge/local-extractor.ts';
import { parseTranscript } from '../../src/modules/transcripts/parse.ts';
import {
  GOLD,
  GOLD_CONFLICTS,
  type GoldActionItem,
  type GoldMeeting,
  type GoldQuestion,
} from '../seed/gold.ts';
import { MEETINGS } from '../seed/meetings.ts';

/**
 * The local extractor scored against the hand-labelled gold set of the demo meetings
 * (`scripts/seed/gold.ts`): precision and recall per kind, how often the owner and due date of a
 * found action item are right, and which of the gold conflicts between meetings the conflict rules
 * find. Runs in-process; the test `test/seed-gold.test.ts` and `npm run eval:seed-gold` share it.
 */

const MEETINGS_DIR = new URL('../seed/meetings/', import.meta.url);
const GOLD_KEY: Record<ItemKind, keyof GoldMeeting> = {
  decision: 'decisions',
  action_item: 'actionItems',
  question: 'questions',
};

export type Found = ExtractedItem & { file: string; line: number };
type GoldItem = {
  lines: number[];
  says: string;
  owner?: string;
  due?: string | string[];
  answered?: boolean;
};

export type KindScore = {
  gold: number;
  found: number;
  /** Found items that are a gold item (a repeat mention of one counts as right). */
  correct: number;
  precision: number;
  recall: number;
  missed: { file: string; line: number; says: string }[];
  wrong: { file: string; line: number; text: string }[];
};

export type GoldReport = {
  meetings: number;
  decisions: KindScore;
  actionItems: KindScore & { owner: { right: number; of: number }; due: { right: number; of: number } };
  /** `answered`: of the questions found, how many are right about whether the meeting answered them. */
  questions: KindScore & {
    answered: { right: number; of: number; wrong: { file: string; line: number; says: string }[] };
  };
  /** Decisions and action items together: the figure the targets are set on. */
  combined: { precision: number; recall: number };
  conflicts: { gold: number; found: number; detected: string[]; missed: string[] };
};

const dueOf = (gold: GoldItem) => (gold.due === undefined ? [] : [gold.due].flat());

/** How well a found item fits a gold one said on the same line: owner first, then due date. */
function agreement(found: Found, gold: GoldItem): number {
  return (
    (gold.owner && found.owner === gold.owner ? 2 : 0) + (dueOf(gold).includes(found.dueDate ?? '') ? 1 : 0)
  );
}

/** Every meeting's items, each with the 1-based line (speaker turn) it was said on. */
export async function extractSeedMeetings(): Promise<{
  items: Found[];
  statements: (Statement & { line: number })[];
}> {
  const items: Found[] = [];
  const statements: (Statement & { line: number })[] = [];
  for (const meeting of MEETINGS) {
    const text = await readFile(new URL(`${meeting.file}.txt`, MEETINGS_DIR), 'utf8');
    const { segments } = await parseTranscript(text);
    const turns = segments.map(({ index, start, end, speaker, text: said }) => ({
      index,
      start,
      end,
      speaker: speaker ?? null,
      text: said,
    }));
    const date = new Date(meeting.recordedAt);
    const lineAt = (seconds: number) => turns.filter((turn) => turn.start <= seconds).length;
    const extraction = extractLocally(meeting.title, turns, date);
    for (const item of extraction.items) {
      items.push({ ...item, file: meeting.file, line: lineAt(item.start) });
      // What the conflict rules compare, as GET /ai/gaps/conflicts reads it: decisions, and answers.
      const said = item.kind === 'decision' ? item : item.answer;
      if (item.kind === 'action_item' || !said) continue;
      statements.push({
        id: `${meeting.file}:${statements.length}`,
        videoId: meeting.file,
        date,
        text: said.text,
        subject: item.subject,
        line: lineAt(said.start),
      });
    }
  }
  return { items, statements };
}

function scoreKind(kind: ItemKind, items: Found[]) {
  const found = items.filter((item) => item.kind === kind);
  const matched = new Set<GoldItem>();
  const pairs: { found: Found; gold: GoldItem }[] = [];
  const wrong: KindScore['wrong'] = [];
  for (const item of found) {
    const candidates = ((GOLD[item.file]?.[GOLD_KEY[kind]] ?? []) as GoldItem[]).filter((gold) =>
      gold.lines.includes(item.line),
    );
    const best = candidates.sort(
      (a, b) => agreement(item, b) - agreement(item, a) || Number(matched.has(a)) - Number(matched.has(b)),
    )[0];
    if (!best) {
      wrong.push({ file: item.file, line: item.line, text: item.text });
      continue;
    }
    if (!matched.has(best)) pairs.push({ found: item, gold: best });
    matched.add(best);
  }
  const missed = Object.entries(GOLD).flatMap(([file, meeting]) =>
    (meeting[GOLD_KEY[kind]] as GoldItem[])
      .filter((gold) => !matched.has(gold))
      .map((gold) => ({ file, line: gold.lines[0] ?? 0, says: gold.says })),
  );
  const gold = Object.values(GOLD).reduce((sum, meeting) => sum + meeting[GOLD_KEY[kind]].length, 0);
  const correct = found.length - wrong.length;
  const score: KindScore = {
    gold,
    found: found.length,
    correct,
    precision: found.length === 0 ? 0 : correct / found.length,
    recall: gold === 0 ? 0 : matched.size / gold,
    missed,
    wrong,
  };
  return { score, pairs };
}

/** Gold conflicts the rules find: a disagreeing pair of statements said on the gold lines. */
function scoreConflicts(statements: (Statement & { line: number })[]) {
  const ordered = [...statements].sort((a, b) => a.date.getTime() - b.date.getTime() || a.line - b.line);
  const verdicts = findDisagreements(ordered).map(({ earlier, later }) => ({
    earlier: ordered[earlier] as Statement & { line: number },
    later: ordered[later] as Statement & { line: number },
  }));
  const isAt = (statement: Statement & { line: number }, place: { file: string; line: number }) =>
    statement.videoId === place.file && statement.line === place.line;
  const detected: string[] = [];
  const missed: string[] = [];
  for (const conflict of GOLD_CONFLICTS) {
    const found = verdicts.some(
      ({ earlier, later }) => isAt(earlier, conflict.earlier) && isAt(later, conflict.later),
    );
    (found ? detected : missed).push(conflict.about);
  }
  return { gold: GOLD_CONFLICTS.length, found: verdicts.length, detected, missed };
}

export async function scoreSeedGold(): Promise<GoldReport> {
  const { items, statements } = await extractSeedMeetings();
  const decisions = scoreKind('decision', items);
  const actions = scoreKind('action_item', items);
  const questions = scoreKind('question', items);
  const withOwner = actions.pairs.filter(({ gold }) => (gold as GoldActionItem).owner);
  const withDue = actions.pairs.filter(({ gold }) => dueOf(gold).length > 0);
  const both = [decisions.score, actions.score];
  const sum = (pick: (score: KindScore) => number) => both.reduce((total, score) => total + pick(score), 0);
  return {
    meetings: MEETINGS.length,
    decisions: decisions.score,
    actionItems: {
      ...actions.score,
      owner: {
        right: withOwner.filter(({ found, gold }) => found.owner === gold.owner).length,
        of: withOwner.length,
      },
      due: {
        right: withDue.filter(({ found, gold }) => dueOf(gold).includes(found.dueDate ?? '')).length,
        of: withDue.length,
      },
    },
    questions: {
      ...questions.score,
      answered: {
        right: questions.pairs.filter(({ found, gold }) => found.answered === (gold as GoldQuestion).answered)
          .length,
        of: questions.pairs.length,
        wrong: questions.pairs
          .filter(({ found, gold }) => found.answered !== (gold as GoldQuestion).answered)
          .map(({ found, gold }) => ({ file: found.file, line: found.line, says: gold.says })),
      },
    },
    combined: {
      precision:
        sum((score) => score.correct) /
        Math.max(
          1,
          sum((score) => score.found),
        ),
      recall:
        sum((score) => score.recall * score.gold) /
        Math.max(
          1,
          sum((score) => score.gold),
        ),
    },
    conflicts: scoreConflicts(statements),
  };
}
