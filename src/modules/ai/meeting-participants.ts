import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { EngineAnswer } from './engine.ts';
import { citationList, type QuotedMeeting } from './knowledge-answers.ts';

/**
 * "Who attended the design review?": the people who speak in the meeting's transcript, most
 * talk first, each cited at the first thing they said; a turn is a run of someone's consecutive
 * segments, as speaker analytics counts it. A transcript names its speakers (a linked
 * speaker's name, else the label the transcript gives); someone who never spoke is not in it, and
 * the answer says that it counts speakers.
 */

type Speaker = {
  name: string;
  turns: number;
  seconds: number;
  start: number;
  end: number;
  text: string;
  total: number;
};

const percent = (part: number, whole: number) => `${Math.round((100 * part) / Math.max(whole, 1e-9))} %`;

/** The answer for `meeting`, whose heading (title and day) the caller writes. */
export async function meetingParticipants(
  db: Db,
  meeting: QuotedMeeting,
  heading: string,
): Promise<EngineAnswer> {
  const { rows } = await db.execute<Speaker>(sql`
    with segments as (
      select coalesce(sp.name, s.speaker_label) as name, s.index, s.start_seconds, s.end_seconds, s.text
      from transcript_segments s left join speakers sp on sp.id = s.speaker_id
      where s.video_id = ${meeting.id}
    ),
    turns as (select *, lag(name) over (order by index) as before from segments)
    select name, (count(*) filter (where before is distinct from name))::int as turns,
      sum(end_seconds - start_seconds)::float8 as seconds,
      (array_agg(start_seconds order by index))[1] as start, (array_agg(end_seconds order by index))[1] as "end",
      (array_agg(text order by index))[1] as text,
      sum(sum(end_seconds - start_seconds)) over ()::float8 as total
    from turns where name is not null
    group by name
    order by seconds desc, name`);
  const answer = (text: string, citations: EngineAnswer['citations'] = []) => ({
    answer: text,
    answered: true,
    confidence: 1,
    citations,
  });
  if (rows.length === 0) return answer(`The transcript of ${heading} names no speaker.`);
  const { citations, cite } = citationList();
  const total = rows[0]?.total ?? 0;
  const people = rows.map(
    (speaker) =>
      `${speaker.name} (${speaker.turns} ${speaker.turns === 1 ? 'turn' : 'turns'}, ${percent(speaker.seconds, total)} of the talk) ${cite(meeting, { ...speaker, speaker: speaker.name })}`,
  );
  const who = rows.length === 1 ? 'one person spoke' : `${rows.length} people spoke`;
  return answer(`In ${heading}, ${who}, most talk first: ${people.join('; ')}.`, citations);
}
