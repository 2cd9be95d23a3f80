import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { type RetrievalScope, videoScopeConditions } from '../search/retrieval.ts';
import { questionQuery, storedVector } from '../search/stemming.ts';
import { dayWriter } from './answer-timeline.ts';
import type { EngineAnswer } from './engine.ts';
import { citationList, type QuotedMeeting, taskLine } from './knowledge-answers.ts';
import {
  changedAfterMatter,
  type HeldWindow,
  type KnowledgeListQuestion,
  knowledgeListQuestion,
  type ListedKind,
  statusMatter,
} from './list-questions.ts';
import { tidySpeech } from './sentences.ts';

/**
 * A question that asks for the decisions, the open questions or the action items of its scope
 * (list-questions.ts) is answered from stored knowledge: the items of the meetings in scope held
 * in the days it names, latest meeting first, in the order said within each, each cited at its
 * moment. With no days named and nothing stored, retrieval answers (the words may still be said);
 * with days named, an empty list is the answer, and says which days it looked at. A list of
 * action items or open questions about a matter ("next steps for the job queue") holds those that
 * name it; none stored, retrieval answers. A question for
 * the status of a matter gets the decisions, action items and open questions that name it, latest
 * first: the latest state leads, and what it replaced follows. Either answer says how many of the
 * meetings it looked at are still being read, or could not be: their items are in no list.
 */

/** Items an answer lists; the rest are counted. */
const LISTED_ITEMS = 8;

type Item = {
  kind: ListedKind;
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
 * (`speakerBefore`: the previous item's in the same meeting). In a list of several kinds, an
 * action item says it is one.
 */
function line(item: Item, day: (date: Date) => string, mixed: boolean, speakerBefore?: string | null) {
  if (item.kind === 'action_item') return `${mixed ? 'Action item: ' : ''}${taskLine(item, day)}`;
  const quoted = `“${tidySpeech(item.text)}”`;
  if (!item.speaker || item.speaker === speakerBefore) return quoted;
  return item.kind === 'question' ? `${item.speaker} asked ${quoted}` : `${item.speaker}: ${quoted}`;
}

/** How long after a passage that names a matter whole the talk is taken to be still about it. */
const DISCUSSION_SECONDS = 180;

/**
 * The items of `kinds` in the scope's meetings held in `window` whose words say every content word
 * of `matter` — or, `byTitle`, whose meeting's title does (the tasks of "Moving transcripts to a
 * job queue" need not say "job queue") — latest meeting first, up to LISTED_ITEMS (each row says
 * how many there are in all); questions only when no reply answered them.
 */
async function itemsOf(
  db: Db,
  scope: RetrievalScope,
  {
    kinds,
    window,
    matter,
    byTitle = false,
    inMeetingOn = false,
    speaker = null,
  }: {
    kinds: ListedKind[];
    window: HeldWindow | null;
    matter: string | null;
    byTitle?: boolean;
    /**
     * An item names the matter when it says one of its words where its meeting discusses the whole
     * matter ("the checklist stays", said after "Now the onboarding checklist").
     */
    inMeetingOn?: boolean;
    /** Only the items this speaker said. */
    speaker?: string | null;
  },
) {
  const { rows } = await db.execute<Item>(sql`
    select i.kind, i.text, i.start, i."end", i.speaker, i.owner, to_char(i.due_date, 'YYYY-MM-DD') as "dueDate",
      v.id as "videoId", v.title as "videoTitle", coalesce(v.recorded_at, v.created_at) as "heldAt",
      count(*) over ()::int as total
    from knowledge_items i join videos v on v.id = i.video_id
    where i.kind = any(${sql.param(kinds)}::text[]) and ${videoScopeConditions(scope)} and ${heldIn(window)}
      and (i.kind <> 'question' or i.answered is not true)
      ${speaker === null ? sql`` : sql`and i.speaker = ${speaker}`}
      ${
        matter === null
          ? sql``
          : inMeetingOn
            ? sql`and ${storedVector(sql`i.text`)} @@ replace(${questionQuery(matter)}::text, '&', '|')::tsquery
                and exists (select 1 from transcript_chunks c
                  where c.video_id = i.video_id and c.search @@ phraseto_tsquery('english', ${matter})
                    and i.start between c.start_seconds and c.end_seconds + ${DISCUSSION_SECONDS})`
            : sql`and (${storedVector(sql`i.text`)} @@ ${questionQuery(matter)}
              ${byTitle ? sql`or ${storedVector(sql`v.title`)} @@ ${questionQuery(matter)}` : sql``})`
      }
    order by "heldAt" desc, v.id, i.start
    limit ${LISTED_ITEMS}`);
  return rows.map((row) => ({ ...row, heldAt: new Date(row.heldAt) }));
}

/** The items, one part per meeting, latest first ("On January 19, in “Weekly product sync”: …"), cited. */
function written(heading: string, items: Array<Item & { heldAt: Date }>, mixed: boolean): EngineAnswer {
  const day = dayWriter(
    items.flatMap((item) => [item.heldAt, ...(item.dueDate ? [new Date(item.dueDate)] : [])]),
  );
  const { citations, cite } = citationList();
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
        .map((item, at) => `${line(item, day, mixed, said[at - 1]?.speaker)} ${cite(meeting, item)}`)
        .join('; ')}.`,
  );
  const total = items[0]?.total ?? 0;
  const more = total > items.length ? ` And ${total - items.length} more.` : '';
  return { answer: `${heading} ${parts.join(' ')}${more}`, answered: true, confidence: 1, citations };
}

/**
 * How many of the scope's meetings were held in `window`, and of them how many have knowledge
 * not there to list: still being extracted (`pending`), or not extracted (`failed`,
 * `over_budget`). A list leaves out their items, and says so.
 */
async function meetingsHeld(db: Db, scope: RetrievalScope, window: HeldWindow | null) {
  const { rows } = await db.execute<{ held: number; pending: number; failed: number }>(sql`
    select count(*)::int as held, count(*) filter (where k.status = 'pending')::int as pending,
      count(*) filter (where k.status in ('failed', 'over_budget'))::int as failed
    from videos v left join video_knowledge k on k.video_id = v.id
    where ${videoScopeConditions(scope)} and ${heldIn(window)}`);
  return { held: rows[0]?.held ?? 0, pending: rows[0]?.pending ?? 0, failed: rows[0]?.failed ?? 0 };
}

/** "meeting", "2 meetings". */
const meetingsWord = (n: number) => (n === 1 ? 'meeting' : `${n} meetings`);

/** " 2 meetings are still being read: their decisions are not in this answer yet." */
function unreadNote({ pending, failed }: { pending: number; failed: number }, listed: string) {
  const of = (n: number) =>
    n === 1
      ? { count: 'One meeting', is: 'is', its: 'its' }
      : { count: `${n} meetings`, is: 'are', its: 'their' };
  return [
    pending > 0
      ? ` ${of(pending).count} ${of(pending).is} still being read: ${of(pending).its} ${listed} are not in this answer yet.`
      : '',
    failed > 0
      ? ` ${of(failed).count} could not be read: ${of(failed).its} ${listed} are not in this answer.`
      : '',
  ].join('');
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
  const { kind, window, matter } = asked;
  const items = await itemsOf(db, scope, { kinds: [kind], window, matter, byTitle: true });
  const names = NAMES[kind];
  if (items.length === 0) {
    // Nothing stored names the matter: it may still be said, in words retrieval finds.
    if (!window || matter) return null;
    const meetings = await meetingsHeld(db, scope, window);
    const read = meetings.held - meetings.pending - meetings.failed;
    const answer =
      meetings.held === 0
        ? `No meeting here was held ${daysSaid(window)}.`
        : read === 0
          ? `Nothing can be listed yet for the ${meetingsWord(meetings.held)} held ${daysSaid(window)}.`
          : `No ${names.one} was recorded in the ${meetingsWord(read)} held ${daysSaid(window)}.`;
    return {
      answer: answer + unreadNote(meetings, names.plural.toLowerCase()),
      answered: true,
      confidence: 1,
      citations: [],
    };
  }
  const held = window ? ` in the meetings held ${daysSaid(window)}` : '';
  const about = matter ? ` about ${matter}` : '';
  const listed = written(`${names.plural}${about}${held}, latest meeting first:`, items, false);
  const note = unreadNote(await meetingsHeld(db, scope, window), names.plural.toLowerCase());
  return { ...listed, answer: listed.answer + note };
}

/**
 * The stored items of `kinds` about a matter (or said by `speaker`), in all the scope's meetings,
 * as one answer under `heading` (`listed`: what the unread-meetings note calls them); null when
 * there are none. An item of a list of several kinds says which it is.
 */
async function storedItems(
  db: Db,
  scope: RetrievalScope,
  query: {
    kinds: ListedKind[];
    matter: string | null;
    byTitle?: boolean;
    inMeetingOn?: boolean;
    speaker?: string;
  },
  heading: string,
  listed: string,
): Promise<EngineAnswer | null> {
  const items = await itemsOf(db, scope, { ...query, window: null });
  if (items.length === 0) return null;
  const answer = written(heading, items, query.kinds.length > 1);
  const note = unreadNote(await meetingsHeld(db, scope, null), listed);
  return { ...answer, answer: answer.answer + note };
}

/**
 * The answer to "what changed after <matter>?": the decisions and action items that name it, or
 * that a meeting whose title names it recorded ("Incident retrospective: search outage"), latest
 * meeting first; null when the question is not one or nothing stored names it.
 */
export async function changesAfter(db: Db, question: string, scope: RetrievalScope) {
  const matter = changedAfterMatter(question);
  if (!matter) return null;
  return storedItems(
    db,
    scope,
    { kinds: ['decision', 'action_item'], matter, byTitle: true },
    `Decisions and action items about ${matter}, latest meeting first:`,
    'decisions and action items',
  );
}

/**
 * The answer to "what's the status of <matter>?": the decisions, action items and open questions
 * that name it, latest meeting first; with none, the decisions and action items that name a word
 * of it where a meeting discusses it whole ("What happened with the onboarding checklist?": "the
 * checklist stays…" of the sync that discussed it, not "the release checklist"); null when the
 * question is not one or nothing stored names it. A meeting's title does not stand for its items
 * here: "the onboarding checklist" would list the design review's and leave out the later
 * meetings' "the checklist is on hold", the state that stands.
 */
export async function matterStatus(db: Db, question: string, scope: RetrievalScope) {
  const matter = statusMatter(question);
  if (!matter) return null;
  const status = (kinds: ListedKind[], inMeetingOn: boolean) =>
    storedItems(
      db,
      scope,
      { kinds, matter, byTitle: false, inMeetingOn },
      `The latest on ${matter}, latest meeting first:`,
      'decisions, action items and questions',
    );
  // Near the matter, a decision or a task is about it; a question may only say one of its words
  // ("Do you need training data…?" near "digits data").
  return (
    (await status(['decision', 'action_item', 'question'], false)) ??
    (await status(['decision', 'action_item'], true))
  );
}

/**
 * The decisions `person` stated in the scope's meetings, latest meeting first ("What did Maya
 * decide?"): a chair's "Decision: …" is theirs to answer for.
 */
export async function decisionsStatedBy(
  db: Db,
  scope: RetrievalScope,
  person: string,
): Promise<EngineAnswer> {
  return (
    (await storedItems(
      db,
      scope,
      { kinds: ['decision'], matter: null, speaker: person },
      `Decisions ${person} stated, latest meeting first:`,
      'decisions',
    )) ?? {
      answer: `No decision ${person} stated was recorded in these meetings.`,
      answered: true,
      confidence: 1,
      citations: [],
    }
  );
}
