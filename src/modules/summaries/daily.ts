import { and, eq, gte, lt, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { videos } from '../../db/schema/index.ts';
import { utcDay } from '../../lib/clock.ts';
import { spokenDuration } from '../../lib/duration.ts';
import { counted } from '../../lib/text.ts';
import { metered } from '../ai/budget.ts';
import { resolveAiScope } from '../ai/scope.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { meetingDate } from '../videos/meetings.ts';
import { listed } from './compose.ts';
import { loadItems, loadMeetings, type Meeting, type MeetingItems, topicsOfMeetings } from './meetings.ts';
import type { DailyQuery, DailySummaryView, MeetingTopicView } from './schemas.ts';

const DAY_MS = 86_400_000;

/**
 * Different speakers in the meetings (by name, any case), from the talk time stored per speaker
 * with each transcript: every named turn has its speaker's row there, and reading the rows instead
 * of every segment took a day of 1,000 meetings from about a second to milliseconds.
 */
async function speakerCount(context: AppContext, videoIds: string[]): Promise<number> {
  const { rows } = await context.db.execute<{ speakers: number }>(sql`
    select count(distinct lower(sp.name))::int as speakers
    from video_speaker_stats st join speakers sp on sp.id = st.speaker_id
    where st.video_id = any(${sql.param(videoIds)}::uuid[])`);
  return rows[0]?.speakers ?? 0;
}

/** "3 meetings on 2026-11-20 (1 h 25 min): A, B and C. 2 decisions, …. Most discussed: …." */
function compose(
  date: string,
  meetings: Meeting[],
  totals: MeetingItems['totals'],
  topics: MeetingTopicView[],
  totalSeconds: number,
): string {
  if (meetings.length === 0) return `No meetings recorded on ${date}.`;
  const length = totalSeconds > 0 ? ` (${spokenDuration(totalSeconds)})` : '';
  const titles = listed(meetings.map((meeting) => `"${meeting.title}"`));
  const parts = [`${counted(meetings.length, 'meeting')} on ${date}${length}: ${titles}.`];
  const pending = meetings.filter((meeting) => meeting.summary === null).length;
  const ready = meetings.length - pending;
  if (ready > 0) {
    parts.push(
      `${listed([
        counted(totals.decisions, 'decision'),
        counted(totals.actionItems, 'action item'),
        counted(totals.openQuestions, 'open question'),
      ])}.`,
    );
  }
  if (topics.length > 0)
    parts.push(`Most discussed: ${listed(topics.slice(0, 3).map((topic) => topic.name))}.`);
  if (pending > 0) {
    parts.push(
      pending === meetings.length
        ? 'Their knowledge is not extracted yet.'
        : `The knowledge of ${pending} of them is not extracted yet.`,
    );
  }
  return parts.join(' ');
}

/**
 * `GET /ai/summaries/daily`: the organization's live meetings of one UTC day (by meeting date),
 * what was decided, assigned and left open in them, and their topics. Composed from the stored
 * knowledge; a day with meetings costs `summary` credits, an empty day nothing.
 */
export async function dailySummary(
  context: AppContext,
  user: AuthUser,
  query: DailyQuery,
): Promise<DailySummaryView> {
  const { db } = context;
  const { organizationId } = await resolveAiScope(db, user, query, 'querystring');
  const date = query.date ?? utcDay(context.clock.now());
  const from = new Date(`${date}T00:00:00.000Z`);
  const to = new Date(from.getTime() + DAY_MS);
  const meetings = await loadMeetings(
    db,
    and(eq(videos.organizationId, organizationId), gte(meetingDate, from), lt(meetingDate, to)),
    { order: 'asc' },
  );
  const summarize = () => summarizeDay(context, { organizationId, date, meetings });
  // An empty day is composed like any other, and costs nothing.
  return meetings.length > 0
    ? metered(context, { organizationId, feature: 'summary' }, summarize)
    : summarize();
}

async function summarizeDay(
  context: AppContext,
  { organizationId, date, meetings }: { organizationId: string; date: string; meetings: Meeting[] },
): Promise<DailySummaryView> {
  const { db } = context;
  const videoIds = meetings.map((meeting) => meeting.id);
  const [{ totals, ...items }, topics, speakers] = await Promise.all([
    loadItems(db, videoIds),
    topicsOfMeetings(db, videoIds),
    meetings.length > 0 ? speakerCount(context, videoIds) : 0,
  ]);
  const totalDurationSeconds = meetings.reduce((total, meeting) => total + (meeting.durationSeconds ?? 0), 0);
  return {
    date,
    organizationId,
    summary: compose(date, meetings, totals, topics, totalDurationSeconds),
    videos: meetings.map((meeting) => ({
      id: meeting.id,
      title: meeting.title,
      date: meeting.date,
      durationSeconds: meeting.durationSeconds,
      knowledgeStatus: meeting.knowledgeStatus,
      summary: meeting.summary,
    })),
    ...items,
    topics,
    stats: {
      videos: meetings.length,
      totalDurationSeconds,
      ...totals,
      speakers,
    },
  };
}
