import type { KnowledgeQuote } from '../../db/schema/index.ts';
import type { Citation } from './engine.ts';
import { tidySpeech } from './sentences.ts';

/**
 * What the answers written from stored knowledge (meeting-overview.ts, own-tasks.ts,
 * knowledge-lists.ts) share: their
 * citations, lists and tasks. Knowledge quotes are verbatim moments of a transcript, so each is a
 * citation as an engine's would be.
 */

/** Items of the kind asked for an answer lists; the rest are counted. */
export const LISTED = 5;

/** The meeting a quote was said in. */
export type QuotedMeeting = { id: string; title: string; heldAt: Date };

/** The answer's citations, one per moment quoted, numbered as the text cites them. */
export function citationList() {
  const citations: Citation[] = [];
  const cite = (meeting: QuotedMeeting, quote: KnowledgeQuote) => {
    const source = citations.length + 1;
    citations.push({
      source,
      videoId: meeting.id,
      videoTitle: meeting.title,
      heldAt: meeting.heldAt.toISOString(),
      start: quote.start,
      end: quote.end,
      speaker: quote.speaker,
      quote: quote.text,
    });
    return `[${source}]`;
  };
  return { citations, cite };
}

/** The first `max` of `all`, written by `write` and joined by `separator`, the rest counted. */
export function listed<T>(all: T[], write: (item: T) => string, separator: string, max = LISTED) {
  const shown = all.slice(0, max).map(write).join(separator);
  return all.length > max ? `${shown}${separator}and ${all.length - max} more` : shown;
}

/**
 * The label a task read out from a list opens with ("Fine. Actions then. I update…"), and the
 * "And" that joins it to the one before: the answer says "Action items".
 */
const TASK_LABEL =
  /^(?:(?:fine|good|okay|ok|so|agreed)[.,]\s+)?(?:actions?(?:\s+then)?[.:]\s+)?(?:(?:and|so)\s+)?/i;

/** A task as its owner took it on, quoted as said, without the list's label. */
export const taskQuote = (text: string) => `“${tidySpeech(text.replace(TASK_LABEL, ''))}”`;

/** A task with its owner and due date: "Priya Raman, by January 16: “I write up the findings…”". */
export const taskLine = (
  task: { text: string; owner: string | null; speaker: string | null; dueDate: string | null },
  day: (date: Date) => string,
) => {
  const due = task.dueDate ? `, by ${day(new Date(task.dueDate))}` : '';
  return `${task.owner ?? task.speaker ?? 'No owner'}${due}: ${taskQuote(task.text)}`;
};
