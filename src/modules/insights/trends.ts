import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { aiQuestions, knowledgeItems, videos } from '../../db/schema/index.ts';
import { liveVideosOf, meetingDate } from '../videos/meetings.ts';
import type { InsightPeriod, TopicTrendView, TrendsView } from './schemas.ts';

const DAY_MS = 86_400_000;
const PERIOD_DAYS: Record<InsightPeriod, number> = { '7d': 7, '30d': 30, '90d': 90 };
const TOP_TOPICS = 20;

/** When a meeting took place: when it was recorded, else when it was uploaded. */

type Window = { start: Date; end: Date };
export type Windows = { current: Window; previous: Window };

/** The current period (the last `period` up to now) and the equally long one before it. */
export function periodWindows(period: InsightPeriod, now: Date): Windows {
  const length = PERIOD_DAYS[period] * DAY_MS;
  const currentStart = new Date(now.getTime() - length);
  return {
    current: { start: currentStart, end: now },
    previous: { start: new Date(now.getTime() - 2 * length), end: currentStart },
  };
}

export const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** The current period includes its end (now); the previous one stops where the current starts. */
export const inCurrent = (date: SQL, { current }: Windows) =>
  sql`(${date} >= ${at(current.start)} and ${date} <= ${at(current.end)})`;
const inPrevious = (date: SQL, { previous }: Windows) =>
  sql`(${date} >= ${at(previous.start)} and ${date} < ${at(previous.end)})`;
const inEitherPeriod = (date: SQL, windows: Windows) =>
  sql`(${date} >= ${at(windows.previous.start)} and ${date} <= ${at(windows.current.end)})`;

function changePercent(current: number, previous: number) {
  return previous === 0 ? null : Math.round(((current - previous) / previous) * 1000) / 10;
}

const periodCounts = (date: SQL, windows: Windows) => ({
  current: sql<number>`(count(*) filter (where ${inCurrent(date, windows)}))::int`,
  previous: sql<number>`(count(*) filter (where ${inPrevious(date, windows)}))::int`,
});

const withChange = (row: { current: number; previous: number } | undefined) => {
  const { current = 0, previous = 0 } = row ?? {};
  return { current, previous, changePercent: changePercent(current, previous) };
};

/** Days for a week's trends, weeks for longer ones. */
function bucketLayout(period: InsightPeriod, { current }: Windows) {
  const size = (period === '7d' ? 1 : 7) * DAY_MS;
  const count = Math.ceil((current.end.getTime() - current.start.getTime()) / size);
  const starts = Array.from(
    { length: count },
    (_, index) => new Date(current.start.getTime() + index * size),
  );
  return { size, starts };
}

type TopicPeriodRow = { topic_id: string; name: string; bucket: number | null; meetings: number };

/**
 * Live meetings per topic in both periods, the current period's split into buckets (a null bucket
 * is the previous period). One row per topic and bucket: never one per meeting.
 */
async function topicCounts(
  db: Db,
  organizationId: string,
  windows: Windows,
  layout: { size: number; starts: Date[] },
) {
  const lastBucket = layout.starts.length - 1;
  const { rows } = await db.execute<TopicPeriodRow>(sql`
    select vt.topic_id, t.name,
      case when ${meetingDate} >= ${at(windows.current.start)}
        then least(
          floor(extract(epoch from (${meetingDate} - ${at(windows.current.start)})) * 1000 / ${layout.size})::int,
          ${lastBucket}::int)
      end as bucket,
      count(*)::int as meetings
    from video_topics vt
    join videos on videos.id = vt.video_id
    join topics t on t.id = vt.topic_id
    where vt.organization_id = ${organizationId} and videos.organization_id = ${organizationId}
      and not videos.is_deleted and ${inEitherPeriod(meetingDate, windows)}
    group by 1, 2, 3`);
  return rows;
}

/** Biggest first; a new topic (no previous meetings) is the biggest change of all. */
const changeSize = (trend: TopicTrendView) =>
  trend.changePercent === null ? Number.POSITIVE_INFINITY : Math.abs(trend.changePercent);

async function topicTrends(db: Db, organizationId: string, period: InsightPeriod, windows: Windows) {
  const layout = bucketLayout(period, windows);
  const byTopic = new Map<string, { name: string; previous: number; buckets: number[] }>();
  for (const row of await topicCounts(db, organizationId, windows, layout)) {
    const entry = byTopic.get(row.topic_id) ?? {
      name: row.name,
      previous: 0,
      buckets: layout.starts.map(() => 0),
    };
    if (row.bucket === null) entry.previous += row.meetings;
    else entry.buckets[row.bucket] = (entry.buckets[row.bucket] ?? 0) + row.meetings;
    byTopic.set(row.topic_id, entry);
  }
  const trends: TopicTrendView[] = [...byTopic].map(([id, entry]) => {
    const current = entry.buckets.reduce((sum, count) => sum + count, 0);
    return {
      topic: { id, name: entry.name },
      current,
      previous: entry.previous,
      changePercent: changePercent(current, entry.previous),
      buckets: layout.starts.map((start, index) => ({ start, count: entry.buckets[index] ?? 0 })),
    };
  });
  return trends
    .sort(
      (a, b) =>
        b.current - a.current || changeSize(b) - changeSize(a) || a.topic.name.localeCompare(b.topic.name),
    )
    .slice(0, TOP_TOPICS);
}

async function totals(db: Db, organizationId: string, windows: Windows) {
  const liveVideos = liveVideosOf(organizationId);
  const createdAt = sql`${aiQuestions.createdAt}`;
  const [[videoCounts], [questionCounts], [decisionCounts]] = await Promise.all([
    db
      .select(periodCounts(meetingDate, windows))
      .from(videos)
      .where(and(liveVideos, inEitherPeriod(meetingDate, windows))),
    db
      .select(periodCounts(createdAt, windows))
      .from(aiQuestions)
      .where(and(eq(aiQuestions.organizationId, organizationId), inEitherPeriod(createdAt, windows))),
    db
      .select(periodCounts(meetingDate, windows))
      .from(knowledgeItems)
      .innerJoin(videos, eq(videos.id, knowledgeItems.videoId))
      .where(
        and(
          eq(knowledgeItems.organizationId, organizationId),
          eq(knowledgeItems.kind, 'decision'),
          liveVideos,
          inEitherPeriod(meetingDate, windows),
        ),
      ),
  ]);
  return {
    videos: withChange(videoCounts),
    questionsAsked: withChange(questionCounts),
    decisions: withChange(decisionCounts),
  };
}

/** What the organization's meetings discussed in the period, against the period before. */
export async function computeTrends(
  db: Db,
  organizationId: string,
  period: InsightPeriod,
  now: Date,
): Promise<TrendsView> {
  const windows = periodWindows(period, now);
  const [topicsTrends, counts] = await Promise.all([
    topicTrends(db, organizationId, period, windows),
    totals(db, organizationId, windows),
  ]);
  return { period, ...windows, topics: topicsTrends, totals: counts };
}
