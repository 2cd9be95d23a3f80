import { and, asc, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { knowledgeItems, topics, videoKnowledge, videos, videoTopics } from '../../db/schema/index.ts';
import { meetingDate } from '../videos/meetings.ts';
import type { ActionItemView, DecisionView, MeetingTopicView, OpenQuestionView } from './schemas.ts';

/**
 * What the summaries read about meetings: the videos (live ones only, never a deleted video) with
 * their extracted summary, the items said in them, and the topics they discuss.
 */

export const toDate = (value: string | Date) => new Date(value);

export type Meeting = {
  id: string;
  title: string;
  date: Date;
  durationSeconds: number | null;
  knowledgeStatus: string | null;
  /** The extracted summary's sentences joined; null until the knowledge is ready. */
  summary: string | null;
};

/** Live videos matching `where`, by meeting date. */
export async function loadMeetings(
  db: Db,
  where: SQL | undefined,
  options: { order: 'asc' | 'desc'; limit?: number },
): Promise<Meeting[]> {
  const byDate = options.order === 'asc' ? asc(meetingDate) : desc(meetingDate);
  const query = db
    .select({
      id: videos.id,
      title: videos.title,
      date: meetingDate,
      durationSeconds: videos.durationSeconds,
      knowledgeStatus: videoKnowledge.status,
      sentences: videoKnowledge.summary,
    })
    .from(videos)
    .leftJoin(videoKnowledge, eq(videoKnowledge.videoId, videos.id))
    .where(and(eq(videos.isDeleted, false), where))
    .orderBy(byDate, asc(videos.id))
    .$dynamic();
  const rows = await (options.limit ? query.limit(options.limit) : query);
  return rows.map(({ sentences, ...meeting }) => ({
    ...meeting,
    summary:
      meeting.knowledgeStatus === 'ready' && sentences
        ? sentences.map((sentence) => sentence.text).join(' ') || null
        : null,
  }));
}

export type MeetingItems = {
  decisions: DecisionView[];
  actionItems: ActionItemView[];
  openQuestions: OpenQuestionView[];
  /** How many there are of each kind, the ones beyond the 50 listed included. */
  totals: { decisions: number; actionItems: number; openQuestions: number };
};

/** Most items of each kind a summary lists: enough for any briefing, bounded for a busy library. */
const ITEMS_PER_KIND = 50;

/**
 * The decisions, action items and unanswered questions of the meetings, in time order (meeting
 * date, then second): of each kind the 50 of the latest meetings. `where` narrows them (a topic's
 * decisions); it may refer to the item as `i` and its video as `v`.
 */
export async function loadItems(
  db: Db,
  videoIds: string[],
  options: { kinds?: Array<'decision' | 'action_item' | 'question'>; where?: SQL } = {},
): Promise<MeetingItems> {
  const items: MeetingItems = {
    decisions: [],
    actionItems: [],
    openQuestions: [],
    totals: { decisions: 0, actionItems: 0, openQuestions: 0 },
  };
  if (videoIds.length === 0) return items;
  const kinds = options.kinds ?? ['decision', 'action_item', 'question'];
  const { rows } = await db.execute<{
    id: string;
    kind: string;
    videoId: string;
    videoTitle: string;
    date: string | Date;
    start: number;
    end: number;
    speaker: string | null;
    text: string;
    owner: string | null;
    dueDate: string | null;
    total: number;
  }>(sql`
    select id, kind, "videoId", "videoTitle", date, start, "end", speaker, text, owner, "dueDate", total
    from (
      select i.id, i.kind, i.video_id as "videoId", v.title as "videoTitle",
        coalesce(v.recorded_at, v.created_at) as date, i.start, i."end", i.speaker, i.text, i.owner,
        to_char(i.due_date, 'YYYY-MM-DD') as "dueDate",
        row_number() over (partition by i.kind
          order by coalesce(v.recorded_at, v.created_at) desc, i.start, i.id) as position,
        count(*) over (partition by i.kind)::int as total
      from ${knowledgeItems} i join ${videos} v on v.id = i.video_id
      where i.video_id = any(${sql.param(videoIds)}::uuid[]) and not v.is_deleted
        and i.kind = any(${sql.param(kinds)}::text[])
        and (i.kind <> 'question' or i.answered is not true)
        ${options.where ? sql`and ${options.where}` : sql``}
    ) as items
    where position <= ${ITEMS_PER_KIND}
    order by date, start, id`);
  for (const { kind, owner, dueDate, total, ...row } of rows) {
    const item = { ...row, date: toDate(row.date) };
    if (kind === 'decision') {
      items.decisions.push(item);
      items.totals.decisions = total;
    } else if (kind === 'action_item') {
      items.actionItems.push({ ...item, owner, dueDate });
      items.totals.actionItems = total;
    } else {
      items.openQuestions.push(item);
      items.totals.openQuestions = total;
    }
  }
  return items;
}

/** The topics the meetings discuss, most discussed first. */
export async function topicsOfMeetings(db: Db, videoIds: string[], limit = 20): Promise<MeetingTopicView[]> {
  if (videoIds.length === 0) return [];
  const videoCount = count();
  const mentions = sql<number>`sum(${videoTopics.mentions})::int`.mapWith(Number);
  return db
    .select({ id: topics.id, name: topics.name, videoCount, mentions })
    .from(videoTopics)
    .innerJoin(topics, eq(topics.id, videoTopics.topicId))
    .where(inArray(videoTopics.videoId, videoIds))
    .groupBy(topics.id)
    .orderBy(desc(videoCount), desc(mentions), asc(topics.name), asc(topics.id))
    .limit(limit);
}
