import { and, asc, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { topics, videos, videoTopics } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type Page, pageBounds, toPage } from '../../http/pagination.ts';
import { resolveAiScope } from '../ai/scope.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { roleIn } from '../organizations/access.ts';
import { meetingDate } from '../videos/meetings.ts';
import type { ListTopicsQuery, TopicSort, TopicView } from './schemas.ts';

const toDate = (value: string | Date) => new Date(value);

/**
 * Per topic of the organization, its live meetings: how many, how often they say it, and the first
 * and latest meeting dates. Inner-joined, so a topic whose every meeting is deleted is left out.
 */
function topicStats(db: Db, organizationId: string) {
  return db
    .select({
      topicId: videoTopics.topicId,
      videoCount: count().as('video_count'),
      mentions: sql<number>`sum(${videoTopics.mentions})::int`.as('mentions'),
      firstDiscussedAt: sql<string>`min(${meetingDate})`.as('first_discussed_at'),
      lastDiscussedAt: sql<string>`max(${meetingDate})`.as('last_discussed_at'),
    })
    .from(videoTopics)
    .innerJoin(videos, and(eq(videos.id, videoTopics.videoId), eq(videos.isDeleted, false)))
    .where(eq(videoTopics.organizationId, organizationId))
    .groupBy(videoTopics.topicId)
    .as('topic_stats');
}

function ordering(sort: TopicSort, stats: ReturnType<typeof topicStats>): SQL[] {
  const byName = [asc(sql`lower(${topics.name})`), asc(topics.id)];
  if (sort === 'name') return byName;
  if (sort === '-lastDiscussedAt') return [desc(stats.lastDiscussedAt), ...byName];
  return [desc(stats.videoCount), desc(stats.mentions), ...byName];
}

/** `GET /topics`: the organization's topics that live meetings discuss. */
export async function listTopics(db: Db, user: AuthUser, query: ListTopicsQuery): Promise<Page<TopicView>> {
  const { organizationId } = await resolveAiScope(db, user, query, 'querystring');
  const stats = topicStats(db, organizationId);
  const where = and(
    eq(topics.organizationId, organizationId),
    query.q ? sql`position(lower(${query.q}) in lower(${topics.name})) > 0` : undefined,
  );
  const { limit, offset } = pageBounds(query);
  const [rows, [counted]] = await Promise.all([
    db
      .select({
        id: topics.id,
        name: topics.name,
        keywords: topics.keywords,
        videoCount: stats.videoCount,
        mentions: stats.mentions,
        firstDiscussedAt: stats.firstDiscussedAt,
        lastDiscussedAt: stats.lastDiscussedAt,
      })
      .from(topics)
      .innerJoin(stats, eq(stats.topicId, topics.id))
      .where(where)
      .orderBy(...ordering(query.sort, stats))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(topics).innerJoin(stats, eq(stats.topicId, topics.id)).where(where),
  ]);
  const data = rows.map((row) => ({
    ...row,
    firstDiscussedAt: toDate(row.firstDiscussedAt),
    lastDiscussedAt: toDate(row.lastDiscussedAt),
  }));
  return toPage(data, counted?.total ?? 0, query);
}

export type ReadableTopic = {
  id: string;
  organizationId: string;
  name: string;
  key: string;
  keywords: string[];
};

/**
 * A topic of an organization the caller belongs to. Anything else — an unknown id, another
 * organization's topic — is the same 404, so that another organization's topics are not revealed.
 */
export async function readableTopic(db: Db, user: AuthUser, topicId: string): Promise<ReadableTopic> {
  const [topic] = await db
    .select({
      id: topics.id,
      organizationId: topics.organizationId,
      name: topics.name,
      key: topics.key,
      keywords: topics.keywords,
    })
    .from(topics)
    .where(eq(topics.id, topicId));
  if (!topic || !(await roleIn(db, user.id, topic.organizationId))) throw errors.notFound('Topic not found');
  return topic;
}
