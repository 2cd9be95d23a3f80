import { and, asc, desc, eq, gte, inArray, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/client.ts';
import { aiQuestions, knowledgeItems, topics, videos, videoTopics } from '../../db/schema/index.ts';
import { type Page, pageBounds, toPage } from '../../http/pagination.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { liveVideosOf, meetingDate } from '../videos/meetings.ts';
import {
  type Asking,
  findGaps,
  type Gap,
  type GapType,
  type Severity,
  staleSince,
  type TopicPresence,
} from './gaps-rules.ts';
import type { GapsQuery } from './gaps-schemas.ts';
import { resolveAiScope } from './scope.ts';

/** Rows read per request: the most recent ones, so that a large organization stays fast. */
const MAX_ROWS = 5000;

/** A meeting happened when it was recorded, else when it was uploaded. */

/** Knowledge items of the organization's live meetings since a date, most recent meetings first. */
export async function liveItems(
  db: Db,
  organizationId: string,
  options: { since: Date; kinds: string[]; limit: number; where?: SQL | undefined },
) {
  return db
    .select({
      id: knowledgeItems.id,
      kind: knowledgeItems.kind,
      text: knowledgeItems.text,
      speaker: knowledgeItems.speaker,
      start: knowledgeItems.start,
      end: knowledgeItems.end,
      owner: knowledgeItems.owner,
      answered: knowledgeItems.answered,
      answer: knowledgeItems.answer,
      subject: knowledgeItems.subject,
      videoId: videos.id,
      videoTitle: videos.title,
      date: meetingDate,
    })
    .from(knowledgeItems)
    .innerJoin(videos, eq(videos.id, knowledgeItems.videoId))
    .where(
      and(
        eq(knowledgeItems.organizationId, organizationId),
        liveVideosOf(organizationId),
        inArray(knowledgeItems.kind, options.kinds),
        gte(meetingDate, options.since),
        options.where,
      ),
    )
    .orderBy(desc(meetingDate), asc(knowledgeItems.start))
    .limit(options.limit);
}

function askings(db: Db, organizationId: string, since: Date): Promise<Asking[]> {
  return db
    .select({
      question: aiQuestions.question,
      normalized: aiQuestions.normalizedQuestion,
      userId: aiQuestions.userId,
      answered: aiQuestions.answered,
      confidence: aiQuestions.confidence,
      askedAt: aiQuestions.createdAt,
    })
    .from(aiQuestions)
    .where(and(eq(aiQuestions.organizationId, organizationId), gte(aiQuestions.createdAt, since)))
    .orderBy(desc(aiQuestions.createdAt))
    .limit(MAX_ROWS);
}

function topicPresences(db: Db, organizationId: string, since: Date): Promise<TopicPresence[]> {
  return db
    .select({
      topicId: topics.id,
      name: topics.name,
      key: topics.key,
      videoId: videos.id,
      videoTitle: videos.title,
      date: meetingDate,
      score: videoTopics.score,
      mentions: videoTopics.mentions,
      firstStart: videoTopics.firstStart,
    })
    .from(videoTopics)
    .innerJoin(topics, eq(topics.id, videoTopics.topicId))
    .innerJoin(videos, eq(videos.id, videoTopics.videoId))
    .where(
      and(
        eq(videoTopics.organizationId, organizationId),
        eq(topics.organizationId, organizationId),
        liveVideosOf(organizationId),
        gte(meetingDate, since),
      ),
    )
    .orderBy(desc(meetingDate))
    .limit(MAX_ROWS);
}

/**
 * `GET /ai/gaps`: what the organization's knowledge lacks, from questions asked and meetings
 * held. Reads knowledge extraction already paid for: no credits.
 */
export async function listGaps(context: AppContext, user: AuthUser, query: GapsQuery): Promise<Page<Gap>> {
  const { organizationId } = await resolveAiScope(context.db, user, query, 'querystring');
  const gaps = await organizationGaps(context.db, organizationId, { now: context.clock.now(), ...query });
  const { offset, limit } = pageBounds(query);
  return toPage(gaps.slice(offset, offset + limit), gaps.length, query);
}

/** The gaps of an organization over the last `days`, most severe first (also the Slack digest's). */
export async function organizationGaps(
  db: Db,
  organizationId: string,
  options: { now: Date; days: number; type?: GapType | undefined; minSeverity?: Severity | undefined },
): Promise<Gap[]> {
  const { now } = options;
  const since = new Date(now.getTime() - options.days * 86_400_000);
  // Stale decisions were made up to 90 days before the window: read meetings from there.
  const from = staleSince(since);
  const [moments, asked, presences] = await Promise.all([
    liveItems(db, organizationId, {
      since: from,
      kinds: ['decision', 'action_item', 'question'],
      limit: MAX_ROWS,
    }),
    askings(db, organizationId, since),
    topicPresences(db, organizationId, from),
  ]);
  return findGaps(
    { organizationId, now, since, moments, askings: asked, topics: presences },
    options.type,
    options.minSeverity,
  );
}
