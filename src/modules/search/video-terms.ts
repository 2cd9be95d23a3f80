import { type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';

/**
 * What each meeting says as a whole — its stemmed words and how often it says them
 * (`video_terms`, `video_term_totals`) — and, from that, how likely a question is to be about
 * each meeting. Passages answer *where* in a meeting something was said; a question typed over a
 * whole library must first land in the right meeting, and a meeting that keeps coming back to
 * the question's words is likelier to be it than one with a single dense passage. Measured on
 * QMSum's 162 training meetings in one organization (docs/ai-quality.md): fusing this ranking
 * with the passages' own moved the right meeting to the top for 36 % of the questions instead of
 * 28 %, and into the first two for 45 % instead of 39 %.
 */

/**
 * Dirichlet smoothing, in words (stop words left out): a meeting's own rate of a word counts
 * against the organization's as if it had this many more words. QMSum meetings say about 3,600.
 */
const SMOOTHING_WORDS = 1_000;

/**
 * Counts the words of a video's stored transcript segments and its passages, replacing the counts
 * it had: when a transcript is stored or removed, and by the re-index command. Runs in the caller's
 * transaction, after the segments and passages are written; a video without passages keeps no counts.
 * The words are the stemmed half (weight C) of each segment's stored vector, so nothing is stemmed twice.
 */
export async function indexVideoTerms(tx: Tx, video: { id: string; organizationId: string }) {
  await tx.execute(sql`delete from video_terms where video_id = ${video.id}`);
  await tx.execute(sql`delete from video_term_totals where video_id = ${video.id}`);
  await tx.execute(sql`
    with counted as (
      insert into video_terms (video_id, organization_id, lexeme, occurrences)
      select ${video.id}, ${video.organizationId}, t.lexeme, sum(cardinality(t.positions))::int
      from transcript_segments s cross join unnest(ts_filter(s.search, '{c}')) t
      where s.video_id = ${video.id}
      group by t.lexeme
      returning occurrences
    )
    insert into video_term_totals (video_id, organization_id, occurrences, passages)
    select ${video.id}, ${video.organizationId}, coalesce((select sum(occurrences) from counted), 0)::int, count(*)::int
    from transcript_chunks where video_id = ${video.id}
    having count(*) > 0`);
}

/**
 * CTEs ending in `meeting_likelihood (video_id, value)`: for each video of `videos` (a relation
 * with a `video_id` column), the question's query likelihood — each of its words (`words`: a
 * relation of `lexeme`, `factor`) drawn from the meeting's transcript, smoothed toward the
 * organizations' rate, over that rate, in natural log and weighed by its factor. Higher is
 * likelier; only the order is meant to be used. Words the organizations never say are left out.
 */
export function meetingLikelihood({
  words,
  videos,
  organizations,
}: {
  words: SQL;
  videos: SQL;
  organizations: SQL;
}): SQL {
  return sql`likelihood_words as materialized (
      select w.lexeme, max(w.factor) as factor, said.occurrences
      from ${words} w
      cross join lateral (
        select sum(t.occurrences)::float8 as occurrences from video_terms t
        where t.organization_id = any(${organizations}) and t.lexeme = w.lexeme
      ) said
      where said.occurrences > 0
      group by w.lexeme, said.occurrences
    ),
    likelihood_total as materialized (
      select greatest(sum(occurrences), 1)::float8 as n from video_term_totals
      where organization_id = any(${organizations})
    ),
    meeting_likelihood as materialized (
      select m.video_id, sum(w.factor * ln(
        (coalesce(t.occurrences, 0) + ${sql.raw(String(SMOOTHING_WORDS))} * w.occurrences / total.n)
          / (coalesce(length.occurrences, 0) + ${sql.raw(String(SMOOTHING_WORDS))})
          * total.n / w.occurrences)) as value
      from (select distinct listed.video_id from ${videos} as listed) m
      cross join likelihood_words w
      cross join likelihood_total total
      left join video_term_totals length on length.video_id = m.video_id
      left join video_terms t on t.video_id = m.video_id and t.lexeme = w.lexeme
      group by m.video_id
    )`;
}
