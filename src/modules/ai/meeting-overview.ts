import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { type KnowledgeQuote, knowledgeItems } from '../../db/schema/index.ts';
import { itemColumns } from '../knowledge/views.ts';
import { type RetrievalScope, videoScopeConditions } from '../search/retrieval.ts';
import { questionQuery, storedVector } from '../search/stemming.ts';
import { dayWriter } from './answer-timeline.ts';
import type { EngineAnswer } from './engine.ts';
import { citationList, LISTED, listed, taskLine } from './knowledge-answers.ts';
import { meetingParticipants } from './meeting-participants.ts';
import { type MeetingQuestion, meetingQuestion } from './meeting-questions.ts';
import { introduced, reportedSpeech, sourceWords } from './reported-speech.ts';
import { ended, tidySpeech } from './sentences.ts';

/**
 * A question about one meeting as a whole (meeting-questions.ts) is answered from what knowledge
 * extraction made of that meeting — its summary, decisions, action items and open questions, each
 * cited at its moment — in the order they were said; who attended, from who speaks in its transcript
 * (meeting-participants.ts). The engine that extracted them is the one
 * configured, so nothing is asked of it twice. A meeting whose knowledge is not ready, or whose
 * name matches no meeting in scope, is left to retrieval.
 */

/** "January 12", as a title would say the day. */
const MONTH_DAY = new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', timeZone: 'UTC' });
const monthDay = ({ month, day }: { month: number; day: number }) =>
  MONTH_DAY.format(new Date(Date.UTC(2000, month - 1, day)));

/** Tasks and open questions an overview lists after what was said: it stays a summary. */
const LISTED_IN_OVERVIEW = 3;

type Meeting = {
  id: string;
  title: string;
  heldAt: Date;
  /** How many meetings in scope the question's words name: the latest (or earliest) is answered. */
  named: number;
  summary: KnowledgeQuote[];
};

type Item = KnowledgeQuote & {
  kind: string;
  owner: string | null;
  dueDate: string | null;
  answered: boolean | null;
};

/**
 * The meeting in scope whose title holds every word the question names it by (stemmed: "the
 * weekly syncs" finds "Weekly product sync — January 19") and, when it names a day, that was held
 * that day or says it in its title; the latest unless asked for the first. With no name or day
 * ("this meeting"), the scope's only meeting, or its latest or first when asked. Only a meeting
 * whose knowledge is ready.
 */
async function namedMeeting(db: Db, asked: MeetingQuestion, scope: RetrievalScope): Promise<Meeting | null> {
  const titleSays = (words: string) => sql`${storedVector(sql`v.title`)} @@ ${questionQuery(words)}`;
  const held = sql`coalesce(v.recorded_at, v.created_at) at time zone 'UTC'`;
  const conditions = [
    ...(asked.name === '' ? [] : [titleSays(asked.name)]),
    ...(asked.day
      ? [
          sql`(${titleSays(monthDay(asked.day))}
            or (extract(month from ${held}) = ${asked.day.month} and extract(day from ${held}) = ${asked.day.day}))`,
        ]
      : []),
  ];
  const named = conditions.length > 0 ? sql.join(conditions, sql` and `) : sql`true`;
  const { rows } = await db.execute<Meeting & { heldAt: string | Date; status: string | null }>(sql`
    select v.id, v.title, coalesce(v.recorded_at, v.created_at) as "heldAt", count(*) over ()::int as named,
      k.status, coalesce(k.summary, '[]'::jsonb) as summary
    from videos v left join video_knowledge k on k.video_id = v.id
    where ${videoScopeConditions(scope)} and ${named}
    order by "heldAt" ${asked.which === 'earliest' ? sql`asc` : sql`desc`}, v.id
    limit 1`);
  const meeting = rows[0];
  // Who spoke is read from the transcript; everything else from extracted knowledge.
  if (!meeting || (asked.focus !== 'participants' && meeting.status !== 'ready')) return null;
  if (conditions.length === 0 && asked.which === null && meeting.named > 1) return null;
  const { status: _status, ...found } = meeting;
  return { ...found, heldAt: new Date(meeting.heldAt) };
}

async function itemsOf(db: Db, videoId: string, focus: MeetingQuestion['focus']): Promise<Item[]> {
  const kinds =
    focus === 'decisions'
      ? ['decision']
      : focus === 'actions'
        ? ['action_item']
        : ['decision', 'action_item', 'question'];
  return db
    .select(itemColumns)
    .from(knowledgeItems)
    .where(and(eq(knowledgeItems.videoId, videoId), inArray(knowledgeItems.kind, kinds)))
    .orderBy(asc(knowledgeItems.start), asc(knowledgeItems.id));
}

/** What was said, in reported speech, the speaker named at each change ("Maya Chen said …"). */
function reported(quotes: KnowledgeQuote[], cite: (quote: KnowledgeQuote) => string) {
  let speakerBefore: string | null = null;
  const words = sourceWords(
    quotes.map((quote) => quote.text),
    quotes.flatMap((quote) => (quote.speaker ? [quote.speaker] : [])),
  );
  return listed(
    quotes,
    (quote) => {
      const said = reportedSpeech(ended(tidySpeech(quote.text)), quote.speaker);
      const part =
        quote.speaker && quote.speaker !== speakerBefore
          ? introduced(quote.speaker, 'said', said, words)
          : said;
      speakerBefore = quote.speaker;
      return `${part} ${cite(quote)}`;
    },
    ' ',
  );
}

/** Tasks as their owners took them on, quoted: "Priya Raman, by January 16: “I write up the findings…” [3]". */
function tasks(
  items: Item[],
  cite: (quote: KnowledgeQuote) => string,
  day: (date: Date) => string,
  max = LISTED,
) {
  return listed(items, (item) => `${taskLine(item, day)} ${cite(item)}`, '; ', max);
}

/** "“Weekly product sync — January 19” (January 19; the latest of 3 meetings so named)". */
function headingOf(meeting: Meeting, asked: MeetingQuestion, day: (date: Date) => string) {
  const ofMany =
    asked.which === null && meeting.named > 1 ? `; the latest of ${meeting.named} meetings so named` : '';
  return `“${meeting.title}” (${day(meeting.heldAt)}${ofMany})`;
}

function compose(meeting: Meeting, asked: MeetingQuestion, items: Item[]): EngineAnswer {
  const dueDates = items.flatMap((item) => (item.dueDate ? [new Date(item.dueDate)] : []));
  const day = dayWriter([meeting.heldAt, ...dueDates]);
  const { citations, cite: citeIn } = citationList();
  const cite = (quote: KnowledgeQuote) => citeIn(meeting, quote);
  const heading = headingOf(meeting, asked, day);
  const decisions = items.filter((item) => item.kind === 'decision');
  const actions = items.filter((item) => item.kind === 'action_item');
  const answer = (text: string) => ({ answer: text, answered: true, confidence: 1, citations });

  if (asked.focus === 'decisions') {
    return answer(
      decisions.length === 0
        ? `No decision was recorded in ${heading}.`
        : `In ${heading}: ${reported(decisions, cite)}`,
    );
  }
  if (asked.focus === 'actions') {
    return answer(
      actions.length === 0
        ? `No action item was recorded in ${heading}.`
        : `Action items from ${heading}: ${tasks(actions, cite, day)}.`,
    );
  }
  // The summary with the decisions it leaves out, in the order said; tasks and open questions after.
  const taskStarts = new Set(actions.map((item) => item.start));
  const summaryStarts = new Set(meeting.summary.map((quote) => quote.start));
  const said = [
    ...meeting.summary.filter((quote) => !taskStarts.has(quote.start)),
    ...decisions.filter((item) => !summaryStarts.has(item.start)),
  ].sort((a, b) => a.start - b.start);
  const open = items.filter((item) => item.kind === 'question' && item.answered !== true);
  const parts = [
    said.length > 0 ? reported(said, cite) : '',
    actions.length > 0 ? `Action items: ${tasks(actions, cite, day, LISTED_IN_OVERVIEW)}.` : '',
    open.length > 0
      ? `Left open: ${listed(open, (item) => `“${item.text}” ${cite(item)}`, '; ', LISTED_IN_OVERVIEW)}.`
      : '',
  ].filter(Boolean);
  return answer(`${heading}: ${parts.join(' ')}`);
}

/**
 * The answer to a question about one meeting as a whole, from its knowledge; null when the
 * question is not one (or names no meeting in scope whose knowledge is ready): retrieval answers.
 */
export async function meetingOverview(
  db: Db,
  question: string,
  scope: RetrievalScope,
): Promise<EngineAnswer | null> {
  const asked = meetingQuestion(question);
  if (!asked) return null;
  const meeting = await namedMeeting(db, asked, scope);
  if (!meeting) return null;
  if (asked.focus === 'participants')
    return meetingParticipants(db, meeting, headingOf(meeting, asked, dayWriter([meeting.heldAt])));
  const items = await itemsOf(db, meeting.id, asked.focus);
  if (asked.focus === 'overview' && meeting.summary.length === 0 && items.length === 0) return null;
  return compose(meeting, asked, items);
}
