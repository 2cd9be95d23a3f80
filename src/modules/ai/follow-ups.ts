import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { knowledgeItems, videos } from '../../db/schema/index.ts';
import { subjectOf } from '../knowledge/nlp/text.ts';
import { subjectWords } from './word-sets.ts';

/** At most this many follow-up questions. */
const FOLLOW_UPS = 3;
/** A meeting question whose words overlap the asked one's this much (Jaccard) is the same question. */
const SAME_QUESTION = 0.8;
/** A question raised this close (seconds) to a cited moment is about what the answer cites. */
const NEAR_SECONDS = 60;
/** Whom a meeting question was put to ("Tom, does…"): the reader asks the library, not Tom. */
const ADDRESSEE = /^\p{Lu}\p{Ll}+(?: and \p{Lu}\p{Ll}+)?,\s+(?=\p{Ll})/u;
/** How a meeting announced its question ("Another open question: should…"). */
const ANNOUNCED = /^[^:?]{0,30}\bquestions?(?: from us)?:\s+/i;
/** A word that joined the question to the talk before it ("And the names, are they editable?"). */
const JOINED = /^(?:and|so|but|okay|ok|also),?\s+/i;
/**
 * A question about what the talk before it said, without naming it ("How long would that take to
 * drain?", "Can we suggest related channels there?"): asked of the library, it asks about nothing.
 */
const POINTS_BACK =
  /\b(?:is|was|are|does|did|do|would|will|could|can|should) (?:that|this|those|these)\b|\b(?:that|this|there|it|them|those|these)\?$/i;

/** A meeting question as the reader would ask it: without whom it was put to nor how it was announced. */
function asAsked(text: string) {
  const rest = text.replace(ANNOUNCED, '').replace(ADDRESSEE, '').replace(JOINED, '');
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

/**
 * Questions worth asking next, that the library can answer: questions raised in the cited
 * meetings and answered there that share a word with what was asked or were raised near a cited
 * moment, and that name what they ask about — those sharing most first, then the nearest. None
 * when nothing was cited: a suggestion should never lead to another "I don't know", nor away from
 * what was asked.
 */
export async function followUpQuestions(
  db: Db,
  question: string,
  cited: Array<{ videoId: string; start: number }>,
): Promise<string[]> {
  if (cited.length === 0) return [];
  const asked = subjectWords(subjectOf(question));
  const distance = (videoId: string, start: number) =>
    Math.min(
      ...cited
        .filter((citation) => citation.videoId === videoId)
        .map((citation) => Math.abs(citation.start - start)),
    );
  const candidates = await db
    .select({
      text: knowledgeItems.text,
      subject: knowledgeItems.subject,
      videoId: knowledgeItems.videoId,
      start: knowledgeItems.start,
    })
    .from(knowledgeItems)
    .innerJoin(videos, eq(videos.id, knowledgeItems.videoId))
    .where(
      and(
        inArray(knowledgeItems.videoId, [...new Set(cited.map((citation) => citation.videoId))]),
        eq(knowledgeItems.kind, 'question'),
        eq(knowledgeItems.answered, true),
        eq(videos.isDeleted, false),
      ),
    )
    .orderBy(knowledgeItems.videoId, knowledgeItems.start)
    .limit(200);
  const seen = new Set<string>();
  return candidates
    .map((candidate) => {
      const words = subjectWords(candidate.subject);
      const shared = [...words].filter((word) => asked.has(word)).length;
      const union = new Set([...words, ...asked]).size;
      return {
        text: asAsked(candidate.text),
        shared,
        sameness: union > 0 ? shared / union : 0,
        distance: distance(candidate.videoId, candidate.start),
      };
    })
    .filter(
      (candidate) =>
        candidate.sameness < SAME_QUESTION &&
        (candidate.shared > 0 || candidate.distance <= NEAR_SECONDS) &&
        !POINTS_BACK.test(candidate.text),
    )
    .sort((a, b) => b.shared - a.shared || a.distance - b.distance)
    .filter((candidate) => {
      const key = candidate.text.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, FOLLOW_UPS)
    .map((candidate) => candidate.text);
}
