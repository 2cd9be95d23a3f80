import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { KnowledgeQuote } from '../../db/schema/index.ts';
import { answerKind, FRAMING_WORDS } from '../search/question-terms.ts';
import { type RetrievalScope, videoScopeConditions } from '../search/retrieval.ts';
import { questionLexemes, questionQuery, storedLexemes, storedVector } from '../search/stemming.ts';
import { dayWriter } from './answer-timeline.ts';
import type { EngineAnswer } from './engine.ts';
import { citationList } from './knowledge-answers.ts';
import { tidySpeech } from './sentences.ts';

/**
 * "How long does a reindex take?" was asked in a meeting ("How long does a reindex take for a big
 * customer?") and answered in the next turn ("For Northwind, roughly four hours."): extraction
 * stores both (knowledge/nlp/questions.ts). A question that is one asked and answered before is
 * answered with that exchange, latest meeting first, each side cited. "The same question": the
 * stored one says every content word of the one asked, and the one asked says at least half of
 * the stored one's (it may have been asked more narrowly). Only a question for one fact
 * (`ASKS_FACT`); one about what was said or discussed ("What do we think about…") asks for the
 * talk, not an exchange: retrieval's.
 */

/**
 * A question for one fact — how long, how much, when, where, which, who, what the something is —
 * which a reply states. An open one ("How are things going with Northwind?") is answered better by
 * all that was said about it (retrieval) than by the first reply.
 */
const ASKS_FACT =
  /^\W*(?:how (?:long|much|many|often|big|fast|soon|far)|when|where|which|who|whom|what(?:'s| is| are| was| were) the)\b/i;
/** How a question asked aloud may open before it asks: "And how long…", "So, who…". */
const SPOKEN_OPENING = /^\W*(?:(?:and|so|but|then|now|okay|ok|well|right)\b[,\s]*)+/i;
/** Exchanges an answer quotes, latest meeting first. */
const QUOTED_EXCHANGES = 3;
/** The share of the stored question's content words the question asked must say. */
const MIN_SHARED = 0.5;
/** Stored questions read that say every word of the question asked (the latest first). */
const CANDIDATES = 20;

type Exchange = {
  text: string;
  start: number;
  end: number;
  speaker: string | null;
  answer: KnowledgeQuote;
  videoId: string;
  videoTitle: string;
  heldAt: string | Date;
  asked: string[];
  stored: string[];
};

/** The answer from exchanges of the scope that asked this question before; null when there is none. */
export async function askedBefore(
  db: Db,
  question: string,
  scope: RetrievalScope,
): Promise<EngineAnswer | null> {
  if (!ASKS_FACT.test(question)) return null;
  const { rows } = await db.execute<Exchange>(sql`
    with asked as (
      select ${questionQuery(question)} as query,
        ${questionLexemes(question)} as lexemes,
        tsvector_to_array(to_tsvector('english', ${FRAMING_WORDS})) as framing
    )
    select i.text, i.start, i."end", i.speaker, i.answer, v.id as "videoId", v.title as "videoTitle",
      coalesce(v.recorded_at, v.created_at) as "heldAt", asked.lexemes as asked,
      ${storedLexemes(sql`i.text`)} as stored
    from asked, knowledge_items i join videos v on v.id = i.video_id
    where cardinality(asked.lexemes) >= 2 and not (asked.lexemes && asked.framing)
      and i.kind = 'question' and i.answered and i.answer is not null and ${videoScopeConditions(scope)}
      and ${storedVector(sql`i.text`)} @@ asked.query
    order by "heldAt" desc, v.id, i.start
    limit ${CANDIDATES}`);
  // The words that say the question's kind ("work" in "who is working on…") are shared only with
  // a question of that kind: "Does the night batching work for operations?" is not "Who is working
  // on the night batch?", but "How long does a reindex take for a big customer?" is "How long
  // does a reindex take?".
  const kind = answerKind(question);
  const same = rows
    .filter((row) => {
      const storedKind = answerKind(row.text.replace(SPOKEN_OPENING, ''));
      const light = new Set(storedKind?.name === kind?.name ? [] : kind?.light);
      const asked = new Set(row.asked.filter((lexeme) => !light.has(lexeme)));
      return row.stored.filter((lexeme) => asked.has(lexeme)).length >= MIN_SHARED * row.stored.length;
    })
    .slice(0, QUOTED_EXCHANGES)
    .map((row) => ({ ...row, heldAt: new Date(row.heldAt) }));
  if (same.length === 0) return null;
  const day = dayWriter(same.map((exchange) => exchange.heldAt));
  const { citations, cite } = citationList();
  const parts = same.map((exchange) => {
    const meeting = { id: exchange.videoId, title: exchange.videoTitle, heldAt: exchange.heldAt };
    const asker = exchange.speaker ?? 'Someone';
    const asked = `${asker} asked “${tidySpeech(exchange.text)}” ${cite(meeting, exchange)}`;
    const reply = `“${tidySpeech(exchange.answer.text)}” ${cite(meeting, exchange.answer)}`;
    const answered = exchange.answer.speaker
      ? `${exchange.answer.speaker} answered: ${reply}`
      : `The reply: ${reply}`;
    return `On ${day(exchange.heldAt)}, in “${exchange.videoTitle}”, ${asked} ${answered}`;
  });
  const meetings = new Set(same.map((exchange) => exchange.videoId)).size;
  const asked =
    same.length === 1
      ? 'This was asked in a meeting.'
      : meetings === 1
        ? `This was asked ${same.length} times in a meeting.`
        : `This was asked ${same.length} times in ${meetings} meetings, latest first.`;
  return { answer: `${asked} ${parts.join(' ')}`, answered: true, confidence: 1, citations };
}
