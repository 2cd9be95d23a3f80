import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { type RetrievalScope, videoScopeConditions } from '../search/retrieval.ts';
import { dayWriter } from './answer-timeline.ts';
import type { EngineAnswer } from './engine.ts';
import { citationList } from './knowledge-answers.ts';
import { NAME, speakerNamed, spokenIn } from './people.ts';
import { introduced, reportedSpeech, sourceWords } from './reported-speech.ts';
import { ended, splitSentences, tidySpeech } from './sentences.ts';

/**
 * "What did Jonas say?", "What did Priya think?": a question that names a speaker and nothing
 * else is answered with what that person said — their longest turns, in the meetings of the scope
 * latest first, each in the order said and cited. Retrieval has no word to go by but the name, and
 * found the turns of others that mention it ("Priya Raman said Jonas finishes the question
 * screen…"). With a subject ("What did Jonas say about the checklist?") retrieval answers.
 */
const ASKS_SAID = new RegExp(
  String.raw`^\s*[Ww]hat (?:did|does|has) ${NAME} (?:say|said|think|thought|mention|suggest|propose|recommend|talk about|bring up)\s*\??\s*$`,
  'u',
);
/** Meetings the answer quotes, latest first. */
const MEETINGS = 3;
/** Turns quoted per meeting: the person's longest there. */
const TURNS_PER_MEETING = 2;
/** A turn shorter than this says little ("Yes, agreed, fine."). */
const MIN_WORDS = 5;
/** Words quoted of a turn, whole sentences. */
const TURN_WORDS = 30;

type Turn = {
  videoId: string;
  videoTitle: string;
  heldAt: string | Date;
  index: number;
  start: number;
  end: number;
  text: string;
};

/** The answer to "what did <name> say?"; null when the question is not one or names no speaker here. */
export async function personSaid(
  db: Db,
  question: string,
  scope: RetrievalScope,
): Promise<EngineAnswer | null> {
  const name = question.match(ASKS_SAID)?.[1];
  if (!name) return null;
  const speaker = speakerNamed(name, [
    ...new Set((await spokenIn(db, scope, name)).map((row) => row.speaker)),
  ]);
  if (!speaker) return null;
  const { rows } = await db.execute<Turn>(sql`
    select video_id as "videoId", title as "videoTitle", held_at as "heldAt", index, start, "end", text
    from (
      select v.id as video_id, v.title, coalesce(v.recorded_at, v.created_at) as held_at, s.index,
        s.start_seconds as start, s.end_seconds as "end", s.text,
        dense_rank() over (order by coalesce(v.recorded_at, v.created_at) desc, v.id) as meeting,
        row_number() over (partition by v.id order by said.words desc, s.index) as longest
      from transcript_segments s join videos v on v.id = s.video_id left join speakers sp on sp.id = s.speaker_id
        cross join lateral (select array_length(regexp_split_to_array(s.text, '[[:space:]]+'), 1) as words) said
      where ${videoScopeConditions(scope)} and coalesce(sp.name, s.speaker_label) = ${speaker}
        and said.words >= ${MIN_WORDS}
    ) turns
    where meeting <= ${MEETINGS} and longest <= ${TURNS_PER_MEETING}
    order by held_at desc, video_id, index`);
  if (rows.length === 0) return null;
  const turns = rows.map((turn) => ({ ...turn, heldAt: new Date(turn.heldAt) }));
  const day = dayWriter(turns.map((turn) => turn.heldAt));
  const { citations, cite } = citationList();
  const words = sourceWords(
    turns.map((turn) => turn.text),
    [speaker],
  );
  const parts = turns.map((turn, at) => {
    const opens = turns[at - 1]?.videoId !== turn.videoId;
    const text = opening(turn);
    const said = reportedSpeech(ended(tidySpeech(text)), speaker);
    const marker = cite(
      { id: turn.videoId, title: turn.videoTitle, heldAt: turn.heldAt },
      { start: turn.start, end: turn.end, speaker, text },
    );
    // Named once per meeting, and "said" whatever the question's verb: "Priya thought Replace it,
    // yes." misreports a statement.
    return opens
      ? `On ${day(turn.heldAt)}, in “${turn.videoTitle}”, ${introduced(speaker, 'said', said, words)} ${marker}`
      : `${said} ${marker}`;
  });
  return { answer: parts.join(' '), answered: true, confidence: 1, citations };
}

/** A turn's first sentences, up to `TURN_WORDS` words (at least its first). */
function opening(turn: Turn): string {
  const sentences = splitSentences({ start: turn.start, end: turn.end, text: turn.text });
  const taken: string[] = [];
  let words = 0;
  for (const sentence of sentences.length > 0 ? sentences : [{ text: turn.text }]) {
    const count = sentence.text.split(/\s+/).length;
    if (taken.length > 0 && words + count > TURN_WORDS) break;
    taken.push(sentence.text.trim());
    words += count;
  }
  return taken.join(' ');
}
