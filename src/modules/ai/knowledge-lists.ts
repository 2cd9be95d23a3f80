import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { type RetrievalScope, videoScopeConditions } from '../search/retrieval.ts';
import { dayWriter } from './answer-timeline.ts';
import type { EngineAnswer } from './engine.ts';
import { citationList, type QuotedMeeting, taskLine } from './knowledge-answers.ts';
import { type HeldWindow, type KnowledgeListQuestion, knowledgeListQuestion } from './list-questions.ts';
import { tidySpeech } from './sentences.ts';

/**
 * A question that asks for the decisions, the open questions or the action items of its scope
 * (list-questions.ts) is answered from stored knowledge: the items of the meetings in scope held
 * in the days it names, latest meeting first, in the order said within each, each cited at its
 * moment. With no days named and nothing stored, retrieval answers (the words may still be said);
 * with days named, an empty list is the answer, and says which days it looked at.
 */

/** Items an answer lists; the rest are counted. */
const LISTED_ITEMS = 8;

type Item = {
  text: string;
  start: number;
  end: number;
  speaker: string | null;
  owner: string | null;
  dueDate: string | null;
  videoId: string;
  videoTitle: string;
  heldAt: string | Date;
  total: number;
};

const NAMES: Record<KnowledgeListQuestion['kind'], { plural: string; one: string }> = {
  decision: { plural: 'Decisions', one: 'decision' },
  question: { plural: 'Questions left open', one: 'open question' },
  action_item: { plural: 'Action items', one: 'action item' },
};

const heldIn = (window: HeldWindow | null) =>
  window
    ? sql`coalesce(v.recorded_at, v.created_at) >= ${window.from.toISOString()}::timestamptz
        and coalesce(v.recorded_at, v.created_at) < ${window.to.toISOString()}::timestamptz`
    : sql`true`;

/** "last week (November 16 – November 22)", "in January": the days as the question said them, and as dates when counted from now. */
function daysSaid(window: HeldWindow) {
  if (!window.relative) return window.said.trim();
  const last = new Date(window.to.getTime() - 1);
  const day = dayWriter([window.from, last]);
  const oneDay = day(window.from) === day(last);
  return `${window.said.trim()} (${oneDay ? day(window.from) : `${day(window.from)} – ${day(last)}`})`;
}

/**
 * How an item is written in the list, before its citation; who said it is named when it changes
 * (`speakerBefore`: the previous item's in the same meeting).
 */
function line(
  kind: KnowledgeListQuestion['kind'],
  item: Item,
  day: (date: Date) => string,
  speakerBefore?: string | null,
) {
  if (kind === 'action_item') return taskLine(item, day);
  const quoted = `“${tidySpeech(item.text)}”`;
  if (!item.speaker || item.speaker === speakerBefore) return quoted;
  return kind === 'question' ? `${item.speaker} asked ${quoted}` : `${item.speaker}: ${quoted}`;
}

/**
 * The answer to a question asking for a list of decisions, open questions or action items; null
 * when the question is not one, or names no days and nothing is stored.
 */
export async function knowledgeList(
  db: Db,
  question: string,
  scope: RetrievalScope,
  now: Date,
): Promise<EngineAnswer | null> {
  const asked = knowledgeListQuestion(question, now);
  if (!asked) return null;
  const { kind, window } = asked;
  const { rows } = await db.execute<Item>(sql`
    select i.text, i.start, i."end", i.speaker, i.owner, to_char(i.due_date, 'YYYY-MM-DD') as "dueDate",
      v.id as "videoId", v.title as "videoTitle", coalesce(v.recorded_at, v.created_at) as "heldAt",
      count(*) over ()::int as total
    from knowledge_items i join videos v on v.id = i.video_id
    where i.kind = ${kind} and ${videoScopeConditions(scope)} and ${heldIn(window)}
      ${kind === 'question' ? sql`and i.answered is not true` : sql``}
    order by "heldAt" desc, v.id, i.start
    limit ${LISTED_ITEMS}`);
  const names = NAMES[kind];
  const total = rows[0]?.total ?? 0;
  if (total === 0) {
    if (!window) return null;
    const { rows: held } = await db.execute<{ meetings: number }>(sql`
      select count(*)::int as meetings from videos v where ${videoScopeConditions(scope)} and ${heldIn(window)}`);
    const meetings = held[0]?.meetings ?? 0;
    const answer =
      meetings === 0
        ? `No meeting here was held ${daysSaid(window)}.`
        : `No ${names.one} was recorded in the ${meetings === 1 ? 'meeting' : `${meetings} meetings`} held ${daysSaid(window)}.`;
    return { answer, answered: true, confidence: 1, citations: [] };
  }
  const items = rows.map((row) => ({ ...row, heldAt: new Date(row.heldAt) }));
  const day = dayWriter(
    items.flatMap((item) => [item.heldAt, ...(item.dueDate ? [new Date(item.dueDate)] : [])]),
  );
  const { citations, cite } = citationList();
  // One part per meeting, latest first: "On January 19, in “Weekly product sync”: …".
  const meetings: Array<{ meeting: QuotedMeeting; items: typeof items }> = [];
  for (const item of items) {
    const last = meetings.at(-1);
    if (last?.meeting.id === item.videoId) last.items.push(item);
    else
      meetings.push({
        meeting: { id: item.videoId, title: item.videoTitle, heldAt: item.heldAt },
        items: [item],
      });
  }
  const parts = meetings.map(
    ({ meeting, items: said }) =>
      `On ${day(meeting.heldAt)}, in “${meeting.title}”: ${said
        .map((item, at) => `${line(kind, item, day, said[at - 1]?.speaker)} ${cite(meeting, item)}`)
        .join('; ')}.`,
  );
  const more = total > items.length ? ` And ${total - items.length} more.` : '';
  const heading = `${names.plural}${window ? ` in the meetings held ${daysSaid(window)}` : ''}, latest meeting first:`;
  return { answer: `${heading} ${parts.join(' ')}${more}`, answered: true, confidence: 1, citations };
}
