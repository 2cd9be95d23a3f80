import { and, eq, exists, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/client.ts';
import { series, topics, videos, videoTopics } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { utcDay } from '../../lib/clock.ts';
import { counted } from '../../lib/text.ts';
import { chargeCredits, creditsFor, requireCredits } from '../ai/budget.ts';
import type { AnswerEngine, EngineAnswer } from '../ai/engine.ts';
import { resolveAiScope } from '../ai/scope.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { type RetrievedStretch, retrieveStretches } from '../search/stretch-retrieval.ts';
import { suggestAgenda } from './agenda.ts';
import { citationBook, listed } from './compose.ts';
import { loadItems, loadMeetings, type Meeting, type MeetingItems, topicsOfMeetings } from './meetings.ts';
import type { MeetingPrepInput, MeetingPrepView } from './schemas.ts';

/** Previous meetings taken from a series, from topics, or found for a query alone: the latest few. */
const LATEST = 5;
/** Passages given to the engine for the query, as QA does. */
const SOURCES = 8;

async function requireSeriesName(db: Db, organizationId: string, seriesId: string): Promise<string> {
  const [row] = await db
    .select({ name: series.name })
    .from(series)
    .where(and(eq(series.id, seriesId), eq(series.organizationId, organizationId)));
  if (!row)
    throw errors.validation([{ path: 'body.seriesId', message: 'is not a series of the organization' }]);
  return row.name;
}

async function requireTopics(db: Db, organizationId: string, topicIds: string[]) {
  const found = await db
    .select({ id: topics.id })
    .from(topics)
    .where(and(inArray(topics.id, topicIds), eq(topics.organizationId, organizationId)));
  const known = new Set(found.map((row) => row.id));
  const missing = topicIds.filter((id) => !known.has(id));
  if (missing.length > 0) {
    throw errors.validation([
      { path: 'body.topicIds', message: `are not topics of the organization: ${missing.join(', ')}` },
    ]);
  }
}

/** The meetings the series, videos and topics name, newest first, each once. */
async function selectedMeetings(db: Db, organizationId: string, input: MeetingPrepInput): Promise<Meeting[]> {
  const inOrganization = eq(videos.organizationId, organizationId);
  const newest = { order: 'desc' as const, limit: LATEST };
  const groups = await Promise.all([
    input.seriesId ? loadMeetings(db, and(inOrganization, eq(videos.seriesId, input.seriesId)), newest) : [],
    input.videoIds
      ? loadMeetings(db, and(inOrganization, inArray(videos.id, input.videoIds)), { order: 'desc' })
      : [],
    input.topicIds
      ? loadMeetings(
          db,
          and(
            inOrganization,
            exists(
              db
                .select({ one: sql`1` })
                .from(videoTopics)
                .where(and(eq(videoTopics.videoId, videos.id), inArray(videoTopics.topicId, input.topicIds))),
            ),
          ),
          newest,
        )
      : [],
  ]);
  const byId = new Map(groups.flat().map((meeting) => [meeting.id, meeting]));
  return [...byId.values()].sort((a, b) => b.date.getTime() - a.date.getTime() || (a.id < b.id ? 1 : -1));
}

/** The (at most five) videos whose passages answer the query best, newest first. */
async function meetingsForQuery(db: Db, organizationId: string, passages: RetrievedStretch[]) {
  const ids = [...new Set(passages.map((passage) => passage.videoId))].slice(0, LATEST);
  if (ids.length === 0) return [];
  return loadMeetings(db, and(eq(videos.organizationId, organizationId), inArray(videos.id, ids)), {
    order: 'desc',
  });
}

function compose(input: {
  meetings: Meeting[];
  seriesName: string | null;
  totals: MeetingItems['totals'];
  overdue: number;
  topicNames: string[];
  query: string | undefined;
  answer: EngineAnswer | null;
}): string {
  const { meetings, totals } = input;
  const of = input.seriesName ? ` of "${input.seriesName}"` : '';
  const latest = meetings[0] as Meeting;
  const parts = [
    `Based on ${counted(meetings.length, 'previous meeting')}${of}, the latest "${latest.title}" on ${utcDay(latest.date)}.`,
    `${listed([
      counted(totals.decisions, 'decision'),
      `${counted(totals.actionItems, 'action item')}${input.overdue > 0 ? ` (${input.overdue} overdue)` : ''}`,
      counted(totals.openQuestions, 'unanswered question'),
    ])}.`,
  ];
  if (input.topicNames.length > 0) parts.push(`Most discussed: ${listed(input.topicNames)}.`);
  if (input.query) {
    parts.push(
      input.answer?.answered
        ? `On "${input.query}": ${input.answer.answer}`
        : `Nothing in these meetings answers "${input.query}".`,
    );
  }
  return parts.join(' ');
}

/**
 * `POST /ai/summaries/meeting-prep`: a briefing for the next meeting from the previous ones — a
 * series' latest occurrences, named videos, the latest meetings of topics, or (a query alone) the
 * meetings retrieval finds for it. The query, when given, is answered by the engine from those
 * meetings' passages. Costs `meeting_prep` credits; when no previous meeting is found, nothing.
 */
export async function meetingPrep(
  context: AppContext,
  engine: AnswerEngine,
  user: AuthUser,
  input: MeetingPrepInput,
): Promise<MeetingPrepView> {
  const { db } = context;
  const { organizationId } = await resolveAiScope(db, user, input);
  const seriesName = input.seriesId ? await requireSeriesName(db, organizationId, input.seriesId) : null;
  if (input.topicIds) await requireTopics(db, organizationId, input.topicIds);
  const credits = { organizationId, credits: creditsFor(context.config, 'meeting_prep') };
  await requireCredits(db, context, credits);

  const selects = Boolean(input.seriesId || input.videoIds || input.topicIds);
  let meetings = selects ? await selectedMeetings(db, organizationId, input) : [];
  let passages: RetrievedStretch[] = [];
  if (input.query && (!selects || meetings.length > 0)) {
    const videoIds = selects ? meetings.map((meeting) => meeting.id) : undefined;
    ({ stretches: passages } = await retrieveStretches(
      db,
      input.query,
      { organizationIds: [organizationId], ...(videoIds ? { videoIds } : {}) },
      { limit: SOURCES },
    ));
    if (!selects) {
      meetings = await meetingsForQuery(db, organizationId, passages);
      const chosen = new Set(meetings.map((meeting) => meeting.id));
      passages = passages.filter((passage) => chosen.has(passage.videoId));
    }
  }
  if (meetings.length === 0) {
    const none = input.seriesId
      ? `No previous meetings of "${seriesName}" yet.`
      : 'No previous meetings found.';
    return {
      organizationId,
      summary: none,
      previousMeetings: [],
      decisions: [],
      openActionItems: [],
      openQuestions: [],
      suggestedAgenda: [],
      citations: [],
    };
  }

  const answer =
    input.query && passages.length > 0
      ? await engine.answer({
          question: input.query,
          sources: passages.map(({ score: _score, ...passage }, position) => ({
            number: position + 1,
            ...passage,
          })),
        })
      : null;
  const videoIds = meetings.map((meeting) => meeting.id);
  const [{ totals, ...items }, meetingTopics] = await Promise.all([
    loadItems(db, videoIds),
    topicsOfMeetings(db, videoIds, 3),
  ]);
  const today = utcDay(context.clock.now());
  // Earliest due first; undated ones last. The sort is stable: ties keep their time order.
  const dueKey = (item: { dueDate: string | null }) => item.dueDate ?? '9999-12-31';
  const openActionItems = [...items.actionItems].sort((a, b) => dueKey(a).localeCompare(dueKey(b)));
  const book = citationBook(answer?.answered ? answer.citations : []);
  const suggestedAgenda = suggestAgenda({
    ...items,
    actionItems: openActionItems,
    topics: meetingTopics,
    meetings: meetings.length,
    today,
    cite: book.cite,
  });
  const view: MeetingPrepView = {
    organizationId,
    summary: compose({
      meetings,
      seriesName,
      totals,
      overdue: openActionItems.filter((item) => item.dueDate !== null && item.dueDate < today).length,
      topicNames: meetingTopics.map((topic) => topic.name),
      query: input.query,
      answer,
    }),
    previousMeetings: meetings.map(({ id, title, date, summary }) => ({ id, title, date, summary })),
    decisions: items.decisions,
    openActionItems,
    openQuestions: items.openQuestions,
    suggestedAgenda,
    citations: book.list(),
  };
  await db.transaction((tx) => chargeCredits(tx, context, { ...credits, feature: 'meeting_prep' }));
  return view;
}
