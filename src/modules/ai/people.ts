import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { type RetrievalScope, videoScopeConditions } from '../search/retrieval.ts';
import { dayWriter } from './answer-timeline.ts';
import type { EngineAnswer } from './engine.ts';
import { citationList, LISTED, listed, taskQuote } from './knowledge-answers.ts';
import { decisionsStatedBy } from './knowledge-lists.ts';
import { ownedTasks, tasksOwnedBy } from './own-tasks.ts';

/**
 * "Who is Sam?", "Who's Priya Raman?": a person named by a speaker's name in the scope — whole,
 * or by a first name no other speaker has — is answered with where they speak (the meetings,
 * latest first, each cited at the first thing they said there) and the action items they own.
 * Retrieval by the name found whatever greets them ("Thanks for making time, Sam."). "What did
 * Daniel commit to?" lists the action items that person owns, as "what are my action items?" does
 * the asker's (own-tasks.ts).
 */

export const NAME = String.raw`(\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*)*)`;
const ASKS_WHO = new RegExp(String.raw`^\s*[Ww]ho(?:'s|’s| is| was)\s+${NAME}\s*\??\s*$`, 'u');
/**
 * "What did Daniel commit to?", "What are Priya's action items?", "What is Tom working on?", "What
 * does Tom own?", "What are the open action items for Tom?".
 */
const ASKS_TASKS = [
  new RegExp(
    String.raw`^\s*[Ww]hat (?:did|does|has|will) ${NAME} (?:commit(?:ted)? to|take on|took on|sign(?:ed)? up for|promise[d]?|owe|(?:have|need) to do|agree(?:d)? to do)\b`,
    'u',
  ),
  new RegExp(
    String.raw`^\s*[Ww]hat (?:are|were) ${NAME}(?:'s|’s) (?:open )?(?:action items|tasks|to-?dos|next steps|assignments)\b`,
    'u',
  ),
  new RegExp(
    String.raw`^\s*[Ww]hat (?:is|was) ${NAME} (?:working on|responsible for|on the hook for)\b`,
    'u',
  ),
  new RegExp(String.raw`^\s*[Ww]hat (?:does|did) ${NAME} own\b`, 'u'),
  // Case-sensitive, as the others: "the next steps for the job queue" names no one, and is not
  // looked up as a person.
  new RegExp(
    String.raw`\b(?:[Aa]ction items|[Tt]asks|[Tt]o-?dos|[Nn]ext steps|[Aa]ssignments) (?:for|of|assigned to|owned by) ${NAME}\s*\??\s*$`,
    'u',
  ),
];

/** "What did Maya decide?", "What has Tom decided?", "What decisions did Maya make?", "Decisions by Maya". */
const ASKS_DECISIONS = [
  new RegExp(
    String.raw`^\s*[Ww]hat (?:did|has|have) ${NAME} (?:decide|decided|settle on|settled on)\s*\??\s*$`,
    'u',
  ),
  new RegExp(
    String.raw`^\s*[Ww]hat decisions (?:did|has|have) ${NAME} (?:make|made|take|taken)\s*\??\s*$`,
    'u',
  ),
  new RegExp(String.raw`^\s*(?:[Tt]he )?[Dd]ecisions (?:by|from|of) ${NAME}\s*\??\s*$`, 'u'),
];

/** The name a question asks the action items of ("What did Daniel commit to?" → "Daniel"), if it asks so. */
export const taskOwnerAsked = (question: string) =>
  ASKS_TASKS.map((pattern) => question.match(pattern)?.[1]).find(Boolean) ?? null;

/** Meetings an answer names; the rest are counted. */
const LISTED_MEETINGS = 5;

type Spoken = {
  speaker: string;
  videoId: string;
  videoTitle: string;
  heldAt: string | Date;
  turns: number;
  start: number;
  end: number;
  text: string;
};

/** The speaker the name stands for: a speaker's whole name, or a first name only one speaker has. */
export function speakerNamed(name: string, speakers: string[]): string | null {
  const asked = name.toLowerCase();
  const whole = speakers.find((speaker) => speaker.toLowerCase() === asked);
  if (whole) return whole;
  const byFirst = speakers.filter((speaker) => speaker.toLowerCase().split(/\s+/)[0] === asked);
  return byFirst.length === 1 ? (byFirst[0] as string) : null;
}

/**
 * The meetings in the scope of each speaker whose whole name or first name is `name` (any case),
 * latest first, with their turns and the first thing they said.
 */
export async function spokenIn(db: Db, scope: RetrievalScope, name: string) {
  const { rows } = await db.execute<Spoken>(sql`
    select coalesce(sp.name, s.speaker_label) as speaker, v.id as "videoId", v.title as "videoTitle",
      coalesce(v.recorded_at, v.created_at) as "heldAt",
      (count(*) filter (where coalesce(psp.name, p.speaker_label) is distinct from coalesce(sp.name, s.speaker_label)))::int
        as turns,
      (array_agg(s.start_seconds order by s.index))[1] as start,
      (array_agg(s.end_seconds order by s.index))[1] as "end",
      (array_agg(s.text order by s.index))[1] as text
    from transcript_segments s join videos v on v.id = s.video_id left join speakers sp on sp.id = s.speaker_id
      -- A turn is a run of the speaker's consecutive segments (as speaker analytics counts them).
      left join transcript_segments p on p.video_id = s.video_id and p.index = s.index - 1
      left join speakers psp on psp.id = p.speaker_id
    where ${videoScopeConditions(scope)}
      and lower(${name}) in (lower(coalesce(sp.name, s.speaker_label)), split_part(lower(coalesce(sp.name, s.speaker_label)), ' ', 1))
    group by 1, v.id
    order by "heldAt" desc, v.id`);
  return rows;
}

/** The answer to "who is <name>?"; null when the question is not one, or names no speaker in scope. */
export async function whoIs(db: Db, question: string, scope: RetrievalScope): Promise<EngineAnswer | null> {
  const name = question.match(ASKS_WHO)?.[1];
  if (!name) return null;
  const rows = await spokenIn(db, scope, name);
  const speaker = speakerNamed(name, [...new Set(rows.map((row) => row.speaker))]);
  if (!speaker) return null;
  const meetings = rows
    .filter((row) => row.speaker === speaker)
    .map((row) => ({ ...row, heldAt: new Date(row.heldAt) }));
  const dated = await ownedTasks(db, scope, { owners: [speaker] });
  const day = dayWriter([
    ...meetings.map((meeting) => meeting.heldAt),
    ...dated.flatMap((task) => (task.dueDate ? [new Date(task.dueDate)] : [])),
  ]);
  const { citations, cite } = citationList();
  const where = listed(
    meetings,
    (meeting) =>
      `“${meeting.videoTitle}” (${day(meeting.heldAt)}; ${meeting.turns} ${meeting.turns === 1 ? 'turn' : 'turns'}) ${cite(
        { id: meeting.videoId, title: meeting.videoTitle, heldAt: meeting.heldAt },
        { ...meeting, speaker },
      )}`,
    '; ',
    LISTED_MEETINGS,
  );
  const count = meetings.length === 1 ? 'one meeting' : `${meetings.length} meetings`;
  // Up to five, the rest counted: the person's page, not their task list ("what did Sam commit to?").
  const shown = dated
    .slice(0, LISTED)
    .map(
      (task) =>
        `${task.dueDate ? `by ${day(new Date(task.dueDate))}` : 'no due date'}: ${taskQuote(task.text)} ${cite(
          { id: task.videoId, title: task.videoTitle, heldAt: task.heldAt },
          task,
        )}`,
    );
  const moreTasks = (dated[0]?.total ?? 0) - shown.length;
  const owned =
    shown.length === 0
      ? ''
      : ` Action items they own, soonest due first: ${shown.join('; ')}${moreTasks > 0 ? `; and ${moreTasks} more` : ''}.`;
  return {
    answer: `${speaker} speaks in ${count} here${meetings.length > 1 ? ', latest first' : ''}: ${where}.${owned}`,
    answered: true,
    confidence: 1,
    citations,
  };
}

/**
 * The answer to "what did <name> commit to?": the action items owned by the person the name
 * stands for (a speaker or an owner in the scope: whole, or a first name only one has); null when
 * the question is not one or names no one here.
 */
export async function personTasks(
  db: Db,
  question: string,
  scope: RetrievalScope,
): Promise<EngineAnswer | null> {
  const name = taskOwnerAsked(question);
  if (!name) return null;
  const { rows: owners } = await db.execute<{ owner: string }>(sql`
    select distinct i.owner from knowledge_items i join videos v on v.id = i.video_id
    where i.kind = 'action_item' and i.owner is not null and ${videoScopeConditions(scope)}`);
  const speakers = (await spokenIn(db, scope, name)).map((row) => row.speaker);
  const person = speakerNamed(name, [...new Set([...speakers, ...owners.map((row) => row.owner)])]);
  if (!person) return null;
  return tasksOwnedBy(db, scope, {
    owners: [person],
    heading: `${person}'s action items, soonest due first:`,
    none: `No action item in these meetings names ${person} as its owner.`,
  });
}

/**
 * The answer to "what did <name> decide?": the decisions the person the name stands for stated
 * (a speaker in the scope: whole, or a first name only one has); null when the question is not one
 * or names no one here. Retrieval by the words found "we should decide that next week".
 */
export async function personDecisions(
  db: Db,
  question: string,
  scope: RetrievalScope,
): Promise<EngineAnswer | null> {
  const name = ASKS_DECISIONS.map((pattern) => question.match(pattern)?.[1]).find(Boolean);
  if (!name) return null;
  const person = speakerNamed(name, [
    ...new Set((await spokenIn(db, scope, name)).map((row) => row.speaker)),
  ]);
  return person ? decisionsStatedBy(db, scope, person) : null;
}
