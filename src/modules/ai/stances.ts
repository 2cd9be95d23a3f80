import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { type RetrievalScope, videoScopeConditions } from '../search/retrieval.ts';
import { questionQuery, storedVector } from '../search/stemming.ts';
import { dayWriter } from './answer-timeline.ts';
import type { EngineAnswer } from './engine.ts';
import { citationList, listed } from './knowledge-answers.ts';
import { NAME, speakerNamed, spokenIn } from './people.ts';
import { splitSentences } from './sentences.ts';

/**
 * "Who agreed with Daniel?", "Who pushed back on Maya about the date?": the replies to a person
 * that take a side, read from who spoke right after them. Retrieval by the words found the
 * person's name and "agree" wherever they were said ("Maya said Daniel prepares the night batch
 * job…"); agreement is mostly said without the word ("He has a point.").
 */

const AGREEING = 'agreed|agrees|agree|has agreed|sided|sides|supported|supports|backed|backs';
const DISAGREEING =
  'disagreed|disagrees|disagree|has disagreed|pushed back|pushes back|objected|objects|argued|argues';
const ASKS_STANCE = new RegExp(
  String.raw`^\s*[Ww]ho (?:(${AGREEING})|${DISAGREEING})(?: with| on| to| against)? ${NAME}(?:(?:'s|’s) \p{Ll}+)?(?:,?\s+(?:about|on|over|regarding|when discussing)\s+(.+?))?\s*\??\s*$`,
  'u',
);

/** How a reply that agrees opens ("He has a point.", "I like it, but…", "That makes sense"). */
const AGREES =
  /^(?:(?:agreed|fair(?: enough)?|good point)\b|i (?:agree|like (?:it|that|this)|accept|support|am with you|'m with you)\b|(?:he|she|they|you) (?:has|have|had) a (?:good |fair )?point|(?:that|this|it)(?:'s| is| was) (?:a )?(?:good|fair|great|clean|right)\b|makes sense|sounds (?:good|right|fine)|good idea)/i;
/** How a reply that disagrees opens ("I disagree, honestly.", "I would rather keep the date."). */
const DISAGREES =
  /^(?:i (?:disagree|don'?t (?:think|agree|buy)|do not (?:think|agree)|would rather|'d rather|am not (?:sure|convinced|comfortable)|'m not (?:sure|convinced|comfortable))|not really|(?:that'?s|that is) not (?:right|true|what)|i (?:would|'d) push back)/i;
/**
 * A yes or a no that opens a reply ("Right. My proposal is…", "No, the customers were promised
 * February."): a side taken when the turn goes on to say something (`SAYS_MORE` words), a
 * listener's "Yeah." or "Right." otherwise.
 */
const ASSENTS = /^(?:yes|yeah|yep|right|exactly|absolutely|true|sure|definitely)\b/i;
const DISSENTS = /^no\b(?![-,]?\s*(?:problem|worries|doubt))/i;
const SAYS_MORE = 5;

/** Words in a sentence too short to quote alone. */
const SHORT_SENTENCE = 8;
/** Words quoted of a turn at most: the citation quotes it whole. */
const QUOTED_WORDS = 20;

type Reply = {
  speaker: string;
  videoId: string;
  videoTitle: string;
  heldAt: string | Date;
  start: number;
  end: number;
  text: string;
  repliedText: string;
};

/**
 * The first sentence of a turn as said, and with `more`, the next when the first is short
 * ("Right. My proposal is…"): the word that takes a side is what the answer shows. A long one is
 * cut.
 */
function opening(text: string, more = false) {
  const [first = text.trim(), second] = splitSentences({ start: 0, end: 0, text }).map(
    (sentence) => sentence.text,
  );
  const words = (
    more && second && first.split(/\s+/).length < SHORT_SENTENCE ? `${first} ${second}` : first
  ).split(/\s+/);
  return words.length > QUOTED_WORDS ? `${words.slice(0, QUOTED_WORDS).join(' ')}…` : words.join(' ');
}

/**
 * The answer to "who agreed with <name>?" (or disagreed, pushed back on…): the replies to the
 * person the name stands for that open by taking that side, latest meeting first, each quoted with
 * what it replied to. Null when the question is not one or names no speaker here.
 */
export async function whoTookSides(
  db: Db,
  question: string,
  scope: RetrievalScope,
): Promise<EngineAnswer | null> {
  const [, agreed, name, matter] = question.match(ASKS_STANCE) ?? [];
  if (!name) return null;
  const person = speakerNamed(name, [
    ...new Set((await spokenIn(db, scope, name)).map((row) => row.speaker)),
  ]);
  if (!person) return null;
  const agreeing = agreed !== undefined;
  // A matter named narrows the replies to those where it is said, in the reply or what it answers.
  const onMatter = matter
    ? sql`and (numnode(${questionQuery(matter)}) = 0
        or ${storedVector(sql`p.text || ' ' || s.text`)} @@ replace(${questionQuery(matter)}::text, '&', '|')::tsquery)`
    : sql``;
  const { rows } = await db.execute<Reply>(sql`
    select coalesce(sp.name, s.speaker_label) as speaker, v.id as "videoId", v.title as "videoTitle",
      coalesce(v.recorded_at, v.created_at) as "heldAt", s.start_seconds as start, s.end_seconds as "end",
      s.text, p.text as "repliedText"
    from transcript_segments s
      join transcript_segments p on p.video_id = s.video_id and p.index = s.index - 1
      join videos v on v.id = s.video_id
      left join speakers sp on sp.id = s.speaker_id
      left join speakers psp on psp.id = p.speaker_id
    where ${videoScopeConditions(scope)}
      and coalesce(psp.name, p.speaker_label) = ${person}
      and coalesce(sp.name, s.speaker_label) is distinct from ${person}
      ${onMatter}
    order by "heldAt" desc, v.id, s.index`);
  const takesSide = (text: string) =>
    (agreeing ? AGREES : DISAGREES).test(text) ||
    ((agreeing ? ASSENTS : DISSENTS).test(text) && text.split(/\s+/).length >= SAYS_MORE);
  const sided = rows
    .map((reply) => ({ ...reply, heldAt: new Date(reply.heldAt) }))
    .filter((reply) => takesSide(reply.text.trim()));
  const about = matter ? ` on ${matter.replace(/[?.!]+$/, '')}` : '';
  if (sided.length === 0)
    return {
      answer: `No one replying to ${person}${about} in these meetings ${agreeing ? 'agreed' : 'disagreed'} in so many words.`,
      answered: true,
      confidence: 1,
      citations: [],
    };
  const day = dayWriter(sided.map((reply) => reply.heldAt));
  const { citations, cite } = citationList();
  const lines = listed(
    sided,
    (reply) =>
      `${reply.speaker} on ${day(reply.heldAt)}, in “${reply.videoTitle}”, to “${opening(reply.repliedText)}”: “${opening(
        reply.text,
        true,
      )}” ${cite({ id: reply.videoId, title: reply.videoTitle, heldAt: reply.heldAt }, reply)}`,
    '; ',
  );
  return {
    answer: `Replies ${agreeing ? 'agreeing with' : 'disagreeing with'} ${person}${about}, latest meeting first: ${lines}.`,
    answered: true,
    confidence: 1,
    citations,
  };
}
