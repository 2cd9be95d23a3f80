import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { type RetrievalScope, videoScopeConditions } from '../search/retrieval.ts';
import { dayWriter } from './answer-timeline.ts';
import type { EngineAnswer } from './engine.ts';
import { citationList, taskQuote } from './knowledge-answers.ts';

/**
 * "What are my action items?" asks for the tasks the person asking took on: the action items
 * knowledge extraction found with them as owner — by their name, or by a speaker linked to their
 * account — in the meetings of the scope, soonest due first. Retrieval by the question's words
 * would find whatever mentions "action items".
 */

const TASKS = '(?:action items?|tasks?|to-?dos?|follow[- ]ups?|next steps|assignments?|actions)';
const ASKS_FOR_OWN_TASKS = new RegExp(
  String.raw`\bmy (?:\w+ ){0,2}${TASKS}\b|\b${TASKS} (?:\w+ ){0,2}(?:of mine|for me|assigned to me|on me)\b|` +
    String.raw`\bwhat (?:do|should|must) i (?:still )?(?:need to |have to )?do\b|\bwhat am i (?:on the hook|responsible) for\b|` +
    String.raw`\bwhat do i owe\b|\bwhat (?:is|was|has been) assigned to me\b|\bwhat did i (?:take on|commit to|sign up for|promise)\b`,
  'i',
);

/** Whether the question asks for the asker's own tasks. */
export const asksForOwnTasks = (question: string) => ASKS_FOR_OWN_TASKS.test(question);

type OwnTask = {
  text: string;
  start: number;
  end: number;
  speaker: string | null;
  dueDate: string | null;
  videoId: string;
  videoTitle: string;
  heldAt: string | Date;
  total: number;
};

/** Tasks an answer lists: enough for a week's work, the rest counted. */
const LISTED_TASKS = 8;

/**
 * The action items owned by any of `owners` (matched in any case; a speaker linked to
 * `linkedUserId` counts too) in the scope, soonest due first, up to LISTED_TASKS (each row says
 * how many there are in all).
 */
export async function ownedTasks(
  db: Db,
  scope: RetrievalScope,
  { owners, linkedUserId }: { owners: string[]; linkedUserId?: string },
) {
  const { rows } = await db.execute<OwnTask>(sql`
    select i.text, i.start, i."end", i.speaker, to_char(i.due_date, 'YYYY-MM-DD') as "dueDate",
      v.id as "videoId", v.title as "videoTitle", coalesce(v.recorded_at, v.created_at) as "heldAt",
      count(*) over ()::int as total
    from knowledge_items i join videos v on v.id = i.video_id
    where i.kind = 'action_item' and ${videoScopeConditions(scope)}
      and lower(trim(i.owner)) in (
        select lower(trim(owner)) from unnest(${sql.param(owners)}::text[]) as owner
        ${
          linkedUserId
            ? sql`union
        select sp.normalized_name from speakers sp
        where sp.user_id = ${linkedUserId} and sp.organization_id = any(${sql.param(scope.organizationIds)}::uuid[])`
            : sql``
        }
      )
    order by i.due_date nulls last, "heldAt" desc, i.start
    limit ${LISTED_TASKS}`);
  return rows.map((row) => ({ ...row, heldAt: new Date(row.heldAt) }));
}

/**
 * The tasks of `ownedTasks`, each with its due date, meeting and day, written after `heading`;
 * with none, `none`. Also answers "What did Daniel commit to?" (people.ts).
 */
export async function tasksOwnedBy(
  db: Db,
  scope: RetrievalScope,
  { heading, none, ...owned }: { owners: string[]; linkedUserId?: string; heading: string; none: string },
): Promise<EngineAnswer> {
  const tasks = await ownedTasks(db, scope, owned);
  const total = tasks[0]?.total ?? 0;
  if (total === 0) return { answer: none, answered: true, confidence: 1, citations: [] };
  const day = dayWriter(
    tasks.flatMap((task) => [task.heldAt, ...(task.dueDate ? [new Date(task.dueDate)] : [])]),
  );
  const { citations, cite } = citationList();
  const written = tasks
    .map((task) => {
      const due = task.dueDate ? `by ${day(new Date(task.dueDate))}` : 'no due date';
      const meeting = { id: task.videoId, title: task.videoTitle, heldAt: task.heldAt };
      return `${due}: ${taskQuote(task.text)} (“${task.videoTitle}”, ${day(task.heldAt)}) ${cite(meeting, task)}`;
    })
    .join('; ');
  const more = total > tasks.length ? `; and ${total - tasks.length} more` : '';
  return { answer: `${heading} ${written}${more}.`, answered: true, confidence: 1, citations };
}

/**
 * The answer to "what are my action items?" from stored knowledge; null when the question asks
 * something else. No task is an answer too: it says so.
 */
export async function ownTasks(
  db: Db,
  question: string,
  asker: { id: string; name: string },
  scope: RetrievalScope,
): Promise<EngineAnswer | null> {
  if (!asksForOwnTasks(question)) return null;
  return tasksOwnedBy(db, scope, {
    owners: [asker.name],
    linkedUserId: asker.id,
    heading: `Your action items (${asker.name}), soonest due first:`,
    none: `No action item in these meetings names you (${asker.name}) as its owner.`,
  });
}
