import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { knowledgeItems, videos } from '../../db/schema/index.ts';
import { subjectOf } from '../knowledge/nlp/text.ts';
import { subjectWords } from './word-sets.ts';

/** At most this many follow-up questions. */
const FOLLOW_UPS = 3;
/** A meeting question whose words overlap the asked one's this much (Jaccard) is the same question. */
const SAME_QUESTION = 0.8;

/**
 * Questions worth asking next, that the library can answer: questions raised in the cited
 * meetings and answered there, those closest to what was asked first, then in the order they
 * came up. None when nothing was cited — a suggestion should never lead to another "I don't know".
 */
export async function followUpQuestions(
  db: Db,
  question: string,
  citedVideoIds: string[],
): Promise<string[]> {
  if (citedVideoIds.length === 0) return [];
  const asked = subjectWords(subjectOf(question));
  const candidates = await db
    .select({ text: knowledgeItems.text, subject: knowledgeItems.subject })
    .from(knowledgeItems)
    .innerJoin(videos, eq(videos.id, knowledgeItems.videoId))
    .where(
      and(
        inArray(knowledgeItems.videoId, [...new Set(citedVideoIds)]),
        eq(knowledgeItems.kind, 'question'),
        eq(knowledgeItems.answered, true),
        eq(videos.isDeleted, false),
      ),
    )
    .orderBy(knowledgeItems.videoId, knowledgeItems.start)
    .limit(200);
  const seen = new Set<string>();
  return candidates
    .map((candidate, order) => {
      const words = subjectWords(candidate.subject);
      const shared = [...words].filter((word) => asked.has(word)).length;
      const union = new Set([...words, ...asked]).size;
      return { text: candidate.text, shared, sameness: union > 0 ? shared / union : 0, order };
    })
    .filter((candidate) => candidate.sameness < SAME_QUESTION)
    .sort((a, b) => b.shared - a.shared || a.order - b.order)
    .filter((candidate) => {
      const key = candidate.text.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, FOLLOW_UPS)
    .map((candidate) => candidate.text);
}
