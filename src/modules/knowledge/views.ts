import { asc, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { knowledgeItems, topics, videoKnowledge, videoTopics } from '../../db/schema/index.ts';
import { requireVideoAccess } from '../videos/access.ts';
import type { VideoKnowledgeView } from './schemas.ts';

/** What an item of a video's knowledge says, and when and by whom: as its views and answers read it. */
export const itemColumns = {
  kind: knowledgeItems.kind,
  text: knowledgeItems.text,
  start: knowledgeItems.start,
  end: knowledgeItems.end,
  speaker: knowledgeItems.speaker,
  owner: knowledgeItems.owner,
  dueDate: knowledgeItems.dueDate,
  answered: knowledgeItems.answered,
};

/** `GET /videos/{id}/knowledge`: the video's extracted knowledge, for whoever may read its transcript. */
export async function getVideoKnowledge(
  db: Db,
  userId: string | null,
  videoId: string,
): Promise<VideoKnowledgeView> {
  await requireVideoAccess(db, { videoId, userId, action: 'read' });
  const [knowledge] = await db.select().from(videoKnowledge).where(eq(videoKnowledge.videoId, videoId));
  const items = await db
    .select({ id: knowledgeItems.id, ...itemColumns, answer: knowledgeItems.answer })
    .from(knowledgeItems)
    .where(eq(knowledgeItems.videoId, videoId))
    .orderBy(asc(knowledgeItems.start), asc(knowledgeItems.id));
  const discussed = await db
    .select({
      id: topics.id,
      name: topics.name,
      mentions: videoTopics.mentions,
      score: videoTopics.score,
      firstStart: videoTopics.firstStart,
    })
    .from(videoTopics)
    .innerJoin(topics, eq(topics.id, videoTopics.topicId))
    .where(eq(videoTopics.videoId, videoId))
    .orderBy(desc(videoTopics.score), asc(topics.name));
  const ofKind = (kind: string) =>
    items.filter((item) => item.kind === kind) as VideoKnowledgeView['decisions'];
  return {
    videoId,
    status: (knowledge?.status ?? 'none') as VideoKnowledgeView['status'],
    engine: knowledge?.engine ?? null,
    extractedAt: knowledge?.extractedAt ?? null,
    summary: knowledge?.summary ?? [],
    chapters: knowledge?.chapters ?? [],
    decisions: ofKind('decision'),
    actionItems: ofKind('action_item'),
    questions: ofKind('question'),
    topics: discussed,
  };
}
