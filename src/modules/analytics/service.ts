import { and, asc, count, countDistinct, desc, eq, gte, inArray, lt, ne, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { speakers, topics, videoSpeakerStats, videos, videoTopics } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { callerOrganization, roleIn } from '../organizations/access.ts';
import { assertOrganizationReferences } from '../organizations/references.ts';

export type AnalyticsFilters = {
  organizationId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  seriesId?: string | undefined;
  channelId?: string | undefined;
};

/** When a meeting happened: when it was recorded, else when it was added. */
const meetingDate = sql<Date>`coalesce(${videos.recordedAt}, ${videos.createdAt})`;

/** The stats rows of the organization's meetings that the filters keep (deleted meetings never). */
function rowsKept(organizationId: string, filters: AnalyticsFilters, ...more: Array<SQL | undefined>) {
  return and(
    eq(videoSpeakerStats.organizationId, organizationId),
    eq(videos.isDeleted, false),
    filters.from ? gte(meetingDate, filters.from) : undefined,
    filters.to ? lt(meetingDate, filters.to) : undefined,
    filters.seriesId ? eq(videos.seriesId, filters.seriesId) : undefined,
    filters.channelId ? eq(videos.channelId, filters.channelId) : undefined,
    ...more,
  );
}

/** Sums of the stored per-meeting metrics; the formulas are in docs/analytics.md. */
const sums = {
  videoCount: countDistinct(videoSpeakerStats.videoId),
  talkSeconds: sql<number>`coalesce(sum(${videoSpeakerStats.talkSeconds}), 0)::float8`,
  wordCount: sql<number>`coalesce(sum(${videoSpeakerStats.wordCount}), 0)::int`,
  turns: sql<number>`coalesce(sum(${videoSpeakerStats.turns}), 0)::int`,
  longestMonologueSeconds: sql<number>`coalesce(max(${videoSpeakerStats.longestMonologueSeconds}), 0)::float8`,
  monologueSeconds: sql<number>`coalesce(sum(${videoSpeakerStats.monologueSeconds}), 0)::float8`,
  questionCount: sql<number>`coalesce(sum(${videoSpeakerStats.questionCount}), 0)::int`,
  interruptions: sql<number>`coalesce(sum(${videoSpeakerStats.interruptions}), 0)::int`,
  patienceSeconds: sql<number>`coalesce(sum(${videoSpeakerStats.patienceSeconds}), 0)::float8`,
  patienceCount: sql<number>`coalesce(sum(${videoSpeakerStats.patienceCount}), 0)::int`,
};
type Sums = { [K in keyof typeof sums]: number };

const tenths = (value: number) => Math.round(value * 10) / 10;
const ratio = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 1000 : 0);

/** The published metrics from the sums; `totalTalkSeconds` is everyone's talk in the same meetings. */
function metricsOf(row: Sums, totalTalkSeconds: number) {
  return {
    videoCount: row.videoCount,
    talkTimeSeconds: tenths(row.talkSeconds),
    talkShare: ratio(row.talkSeconds, totalTalkSeconds),
    wordCount: row.wordCount,
    wordsPerMinute: row.talkSeconds > 0 ? tenths(row.wordCount / (row.talkSeconds / 60)) : 0,
    turns: row.turns,
    longestMonologueSeconds: tenths(row.longestMonologueSeconds),
    averageMonologueSeconds: row.turns > 0 ? tenths(row.monologueSeconds / row.turns) : 0,
    questionCount: row.questionCount,
    interruptions: row.interruptions,
    patienceSeconds: row.patienceCount > 0 ? tenths(row.patienceSeconds / row.patienceCount) : 0,
  };
}

async function scope(
  db: Db,
  caller: Pick<AuthUser, 'id' | 'defaultOrganizationId'>,
  filters: AnalyticsFilters,
) {
  const { organizationId } = await callerOrganization(db, caller, filters.organizationId, {
    path: 'querystring',
  });
  await assertOrganizationReferences(db, organizationId, filters, 'querystring');
  return organizationId;
}

/** Every speaker of the organization's meetings, most talk first, with the totals (any member). */
export async function listSpeakerStats(
  db: Db,
  caller: Pick<AuthUser, 'id' | 'defaultOrganizationId'>,
  query: AnalyticsFilters & PageRequest,
) {
  const organizationId = await scope(db, caller, query);
  const kept = rowsKept(organizationId, query);
  const { limit, offset } = pageBounds(query);
  const [[totals], rows] = await Promise.all([
    db
      .select({ ...sums, speakerCount: countDistinct(videoSpeakerStats.speakerId) })
      .from(videoSpeakerStats)
      .innerJoin(videos, eq(videos.id, videoSpeakerStats.videoId))
      .where(kept),
    db
      .select({ speakerId: speakers.id, name: speakers.name, userId: speakers.userId, ...sums })
      .from(videoSpeakerStats)
      .innerJoin(videos, eq(videos.id, videoSpeakerStats.videoId))
      .innerJoin(speakers, eq(speakers.id, videoSpeakerStats.speakerId))
      .where(kept)
      .groupBy(speakers.id)
      .orderBy(desc(sums.talkSeconds), asc(speakers.normalizedName))
      .limit(limit)
      .offset(offset),
  ]);
  const all = totals ?? {
    ...(Object.fromEntries(Object.keys(sums).map((key) => [key, 0])) as Sums),
    speakerCount: 0,
  };
  const page = toPage(
    rows.map(({ speakerId, name, userId, ...row }) => ({
      speakerId,
      name,
      userId,
      ...metricsOf(row, all.talkSeconds),
    })),
    all.speakerCount,
    query,
  );
  return {
    ...page,
    totals: {
      speakerCount: all.speakerCount,
      videoCount: all.videoCount,
      talkTimeSeconds: tenths(all.talkSeconds),
      wordCount: all.wordCount,
      turns: all.turns,
      questionCount: all.questionCount,
      interruptions: all.interruptions,
    },
  };
}

const MEETINGS = 100;
const TOP = 10;

/** One speaker: the metrics, per meeting, per week, their topics and who they meet (any member; else 404). */
export async function speakerAnalytics(
  db: Db,
  caller: Pick<AuthUser, 'id' | 'defaultOrganizationId'>,
  speakerId: string,
  filters: AnalyticsFilters,
) {
  const [speaker] = await db.select().from(speakers).where(eq(speakers.id, speakerId));
  if (!speaker || !(await roleIn(db, caller.id, speaker.organizationId)))
    throw errors.notFound('Speaker not found');
  const organizationId = speaker.organizationId;
  await assertOrganizationReferences(db, organizationId, filters, 'querystring');
  const kept = rowsKept(organizationId, filters, eq(videoSpeakerStats.speakerId, speakerId));
  // The speaker's meetings (by the organization-and-speaker index): the subqueries read only these.
  const spokenIn = db
    .select({ videoId: videoSpeakerStats.videoId })
    .from(videoSpeakerStats)
    .where(
      and(eq(videoSpeakerStats.organizationId, organizationId), eq(videoSpeakerStats.speakerId, speakerId)),
    );
  // Everyone's talk in each of them, for the speaker's share of it.
  const meetingTalk = db
    .select({
      videoId: videoSpeakerStats.videoId,
      talk: sql<number>`sum(${videoSpeakerStats.talkSeconds})`.as('talk'),
    })
    .from(videoSpeakerStats)
    .where(inArray(videoSpeakerStats.videoId, spokenIn))
    .groupBy(videoSpeakerStats.videoId)
    .as('meeting_talk');
  // Who else talks in them.
  const others = db
    .select({ videoId: videoSpeakerStats.videoId, speakerId: videoSpeakerStats.speakerId })
    .from(videoSpeakerStats)
    .where(and(inArray(videoSpeakerStats.videoId, spokenIn), ne(videoSpeakerStats.speakerId, speakerId)))
    .as('others');
  const week = sql<Date>`date_trunc('week', ${meetingDate} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
  const summaryOf = () =>
    db
      .select({ ...sums, meetingsTalk: sql<number>`coalesce(sum(${meetingTalk.talk}), 0)::float8` })
      .from(videoSpeakerStats)
      .innerJoin(videos, eq(videos.id, videoSpeakerStats.videoId))
      .innerJoin(meetingTalk, eq(meetingTalk.videoId, videoSpeakerStats.videoId))
      .where(kept);

  // Five independent reads, at once (each on its own pooled connection).
  const [[summary], meetings, weekly, topTopics, coSpeakers] = await Promise.all([
    summaryOf(),
    db
      .select({
        videoId: videos.id,
        title: videos.title,
        date: meetingDate,
        talkTimeSeconds: videoSpeakerStats.talkSeconds,
        meetingTalk: meetingTalk.talk,
        wordCount: videoSpeakerStats.wordCount,
        turns: videoSpeakerStats.turns,
        questionCount: videoSpeakerStats.questionCount,
        interruptions: videoSpeakerStats.interruptions,
      })
      .from(videoSpeakerStats)
      .innerJoin(videos, eq(videos.id, videoSpeakerStats.videoId))
      .innerJoin(meetingTalk, eq(meetingTalk.videoId, videoSpeakerStats.videoId))
      .where(kept)
      .orderBy(desc(meetingDate), desc(videos.id))
      .limit(MEETINGS),
    db
      .select({
        weekStart: week,
        videoCount: countDistinct(videoSpeakerStats.videoId),
        talkTimeSeconds: sums.talkSeconds,
        wordCount: sums.wordCount,
      })
      .from(videoSpeakerStats)
      .innerJoin(videos, eq(videos.id, videoSpeakerStats.videoId))
      .where(kept)
      .groupBy(week)
      .orderBy(week),
    db
      .select({ topicId: topics.id, name: topics.name, videoCount: count(videoTopics.videoId) })
      .from(videoSpeakerStats)
      .innerJoin(videos, eq(videos.id, videoSpeakerStats.videoId))
      .innerJoin(videoTopics, eq(videoTopics.videoId, videoSpeakerStats.videoId))
      .innerJoin(topics, eq(topics.id, videoTopics.topicId))
      .where(kept)
      .groupBy(topics.id)
      .orderBy(desc(count(videoTopics.videoId)), desc(sql`sum(${videoTopics.score})`), asc(topics.name))
      .limit(TOP),
    db
      .select({ speakerId: speakers.id, name: speakers.name, sharedVideos: count(others.videoId) })
      .from(videoSpeakerStats)
      .innerJoin(videos, eq(videos.id, videoSpeakerStats.videoId))
      .innerJoin(others, eq(others.videoId, videoSpeakerStats.videoId))
      .innerJoin(speakers, eq(speakers.id, others.speakerId))
      .where(kept)
      .groupBy(speakers.id)
      .orderBy(desc(count(others.videoId)), asc(speakers.normalizedName))
      .limit(TOP),
  ]);

  const row = summary as Sums & { meetingsTalk: number };
  return {
    speakerId: speaker.id,
    name: speaker.name,
    userId: speaker.userId,
    ...metricsOf(row, row.meetingsTalk),
    meetings: meetings.map(({ meetingTalk: talk, date, ...meeting }) => ({
      ...meeting,
      date: new Date(date),
      talkTimeSeconds: tenths(meeting.talkTimeSeconds),
      talkRatio: ratio(meeting.talkTimeSeconds, Number(talk)),
    })),
    weekly: weekly.map((entry) => ({
      ...entry,
      weekStart: new Date(entry.weekStart),
      talkTimeSeconds: tenths(entry.talkTimeSeconds),
    })),
    topTopics,
    coSpeakers,
  };
}
