import { and, asc, desc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { knowledgeItems, videos } from '../../db/schema/index.ts';
import { spokenDuration } from '../../lib/duration.ts';
import { counted } from '../../lib/text.ts';
import { liveVideosOf, meetingDate } from '../videos/meetings.ts';
import type { HighlightView } from './schemas.ts';
import { at, inCurrent, type Windows } from './trends.ts';

const LATEST_DECISIONS = 3;
const NEW_TOPICS = 3;

/** The decisions of the period's latest meetings, in the order they were made there. */
async function latestDecisions(db: Db, organizationId: string, windows: Windows): Promise<HighlightView[]> {
  const rows = await db
    .select({
      text: knowledgeItems.text,
      start: knowledgeItems.start,
      videoId: videos.id,
      videoTitle: videos.title,
    })
    .from(knowledgeItems)
    .innerJoin(videos, eq(videos.id, knowledgeItems.videoId))
    .where(
      and(
        eq(knowledgeItems.organizationId, organizationId),
        eq(knowledgeItems.kind, 'decision'),
        liveVideosOf(organizationId),
        inCurrent(meetingDate, windows),
      ),
    )
    .orderBy(desc(meetingDate), asc(knowledgeItems.start))
    .limit(LATEST_DECISIONS);
  return rows.map((row) => ({ type: 'decision', ...row }));
}

/** The period's meeting with the most views (all-time views: views are not kept per day). */
async function mostWatched(db: Db, organizationId: string, windows: Windows): Promise<HighlightView[]> {
  const [video] = await db
    .select({ id: videos.id, title: videos.title, viewCount: videos.viewCount })
    .from(videos)
    .where(and(liveVideosOf(organizationId), inCurrent(meetingDate, windows), gt(videos.viewCount, 0)))
    .orderBy(desc(videos.viewCount), desc(meetingDate))
    .limit(1);
  if (!video) return [];
  return [
    {
      type: 'most_watched',
      text: `“${video.title}” was the most watched meeting of the period: ${counted(video.viewCount, 'view')}`,
      videoId: video.id,
      videoTitle: video.title,
      value: video.viewCount,
    },
  ];
}

type NewTopicRow = { name: string; meetings: number; video_id: string; video_title: string; start: number };

/** Topics no live meeting discussed before the period: each with the meeting that brought it up first. */
async function newTopics(db: Db, organizationId: string, windows: Windows): Promise<HighlightView[]> {
  const { rows } = await db.execute<NewTopicRow>(sql`
    select t.name, count(*)::int as meetings,
      (array_agg(videos.id order by ${meetingDate}, vt.first_start))[1] as video_id,
      (array_agg(videos.title order by ${meetingDate}, vt.first_start))[1] as video_title,
      (array_agg(vt.first_start order by ${meetingDate}, vt.first_start))[1] as start
    from video_topics vt
    join videos on videos.id = vt.video_id
    join topics t on t.id = vt.topic_id
    where vt.organization_id = ${organizationId} and videos.organization_id = ${organizationId}
      and not videos.is_deleted and ${meetingDate} <= ${at(windows.current.end)}
    group by t.id, t.name
    having min(${meetingDate}) >= ${at(windows.current.start)}
    order by meetings desc, t.name
    limit ${NEW_TOPICS}`);
  return rows.map((row) => ({
    type: 'new_topic',
    text: `New topic: ${row.name}, discussed in ${counted(row.meetings, 'meeting')}`,
    videoId: row.video_id,
    videoTitle: row.video_title,
    start: row.start,
    value: row.meetings,
  }));
}

type SpeakerRow = { name: string; seconds: number; meetings: number };

/**
 * Who spoke the longest in the period's live meetings (speakers as transcripts name them), by the
 * time of their turns, summed from the per-meeting talk time stored with each transcript
 * (video_speaker_stats, the same sums speaker analytics read): reading every segment took about a
 * second at 1,000 meetings (docs/benchmarks.md). Untimed transcripts are timed at 150 words a
 * minute, so time is words.
 */
async function mostActiveSpeaker(db: Db, organizationId: string, windows: Windows): Promise<HighlightView[]> {
  const { rows } = await db.execute<SpeakerRow>(sql`
    select sp.name, sum(st.talk_seconds)::float8 as seconds, count(distinct st.video_id)::int as meetings
    from video_speaker_stats st
    join speakers sp on sp.id = st.speaker_id
    join videos on videos.id = st.video_id
    where st.organization_id = ${organizationId} and videos.organization_id = ${organizationId}
      and not videos.is_deleted and ${inCurrent(meetingDate, windows)}
    group by sp.id, sp.name
    order by seconds desc, sp.name
    limit 1`);
  const speaker = rows[0];
  if (!speaker || speaker.seconds <= 0) return [];
  return [
    {
      type: 'active_speaker',
      text: `${speaker.name} spoke the most: ${spokenDuration(speaker.seconds)} in ${counted(speaker.meetings, 'meeting')}`,
      value: Math.round(speaker.seconds),
    },
  ];
}

/** What stood out in the period: decisions, the most watched meeting, new topics, the most active speaker. */
export async function computeHighlights(db: Db, organizationId: string, windows: Windows) {
  const parts = await Promise.all([
    latestDecisions(db, organizationId, windows),
    mostWatched(db, organizationId, windows),
    newTopics(db, organizationId, windows),
    mostActiveSpeaker(db, organizationId, windows),
  ]);
  return parts.flat();
}
