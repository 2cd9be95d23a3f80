import { utcDay } from '../../lib/clock.ts';
import { clipped, counted } from '../../lib/text.ts';
import type { Quotable } from './compose.ts';
import type { ActionItemView, DecisionView, MeetingTopicView, OpenQuestionView } from './schemas.ts';

export type AgendaItem = { title: string; reason: string; citations: number[] };

/** Action items due within this many days (or overdue) come up for follow-up. */
const DUE_WITHIN_DAYS = 7;
/** Most agenda items of each kind: an agenda is read in a minute. */
const PER_KIND = 3;

const addDays = (day: string, days: number) =>
  utcDay(new Date(new Date(`${day}T00:00:00.000Z`).getTime() + days * 86_400_000));

/**
 * A suggested agenda from what the previous meetings left: action items due (or overdue), questions
 * nobody answered, the latest decisions to confirm, and the most discussed topics — each with why,
 * citing the moment it comes from.
 */
export function suggestAgenda(input: {
  decisions: DecisionView[];
  /** Earliest due first. */
  actionItems: ActionItemView[];
  openQuestions: OpenQuestionView[];
  topics: MeetingTopicView[];
  meetings: number;
  /** YYYY-MM-DD (UTC). */
  today: string;
  cite: (moment: Quotable) => number;
}): AgendaItem[] {
  const { today, cite } = input;
  const agenda: AgendaItem[] = [];
  const horizon = addDays(today, DUE_WITHIN_DAYS);
  const due = input.actionItems.filter((item) => item.dueDate !== null && item.dueDate <= horizon);
  for (const item of due.slice(0, PER_KIND)) {
    const n = cite(item);
    const dueDate = item.dueDate as string;
    const when =
      dueDate < today ? `overdue since ${dueDate}` : dueDate === today ? 'due today' : `due ${dueDate}`;
    agenda.push({
      title: `Follow up: ${clipped(item.text)}`,
      reason: `Action item for ${item.owner ?? 'no one named'}, ${when}, from "${item.videoTitle}" [${n}].`,
      citations: [n],
    });
  }
  for (const question of [...input.openQuestions].reverse().slice(0, PER_KIND)) {
    const n = cite(question);
    const asker = question.speaker ? ` by ${question.speaker}` : '';
    agenda.push({
      title: `Answer: ${clipped(question.text)}`,
      reason: `Asked${asker} in "${question.videoTitle}" on ${utcDay(question.date)} and left unanswered [${n}].`,
      citations: [n],
    });
  }
  for (const decision of [...input.decisions].reverse().slice(0, 2)) {
    const n = cite(decision);
    agenda.push({
      title: `Revisit: ${clipped(decision.text)}`,
      reason: `Decided in "${decision.videoTitle}" on ${utcDay(decision.date)}: confirm it still holds [${n}].`,
      citations: [n],
    });
  }
  for (const topic of input.topics.slice(0, 2)) {
    agenda.push({
      title: `Discuss: ${topic.name}`,
      reason:
        input.meetings === 1
          ? `Discussed in the previous meeting (${counted(topic.mentions, 'mention')}).`
          : `Discussed in ${topic.videoCount} of the ${input.meetings} previous meetings (${counted(topic.mentions, 'mention')}).`,
      citations: [],
    });
  }
  return agenda;
}
