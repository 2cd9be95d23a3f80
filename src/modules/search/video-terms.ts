import { type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { storedLexemes } from './stemming.ts';

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

/** How many passages the organizations' transcripts were cut into (at least 1): the N of a word's idf. */
export const organizationPassages = (organizations: SQL) =>
  sql`(select greatest(sum(passages), 1)::float8 from video_term_totals where organization_id = any(${organizations}))`;

/** How many of the organizations' passages hold a stemmed word (`lexeme`): the n of its idf. */
export const organizationPassagesHolding = (organizations: SQL, lexeme: SQL) =>
  sql`(select coalesce(sum(passages), 0)::float8 from video_terms
    where organization_id = any(${organizations}) and lexeme = ${lexeme})`;

/**
 * Counts the words of a video's stored transcript segments and its passages, replacing the counts
 * it had: when a transcript or its passages are stored or removed, and by the re-index command.
 * Runs in the caller's transaction, after the segments and passages are written; a video without
 * passages keeps no totals. The words said are the stemmed half (weight C) of each segment's
 * stored vector, so nothing is stemmed twice; a passage's words are its text stemmed, speakers'
 * names included (what its search vector holds, stemmed).
 */
export async function indexVideoTerms(tx: Tx, video: { id: string; organizationId: string }) {
  await tx.execute(sql`delete from video_terms where video_id = ${video.id}`);
  await tx.execute(sql`delete from video_term_totals where video_id = ${video.id}`);
  await tx.execute(sql`
    with said as (
      select t.lexeme, sum(cardinality(t.positions))::int as occurrences
      from transcript_segments s cross join unnest(ts_filter(s.search, '{c}')) t
      where s.video_id = ${video.id}
      group by t.lexeme
    ),
    in_passages as (
      select l.lexeme, count(*)::int as passages
      from transcript_chunks c cross join unnest(${storedLexemes(sql`c.text`)}) as l(lexeme)
      where c.video_id = ${video.id}
      group by l.lexeme
    ),
    counted as (
      insert into video_terms (video_id, organization_id, lexeme, occurrences, passages)
      select ${video.id}, ${video.organizationId}, lexeme, coalesce(s.occurrences, 0), coalesce(p.passages, 0)
      from said s full join in_passages p using (lexeme)
      returning occurrences
    )
    insert into video_term_totals (video_id, organization_id, occurrences, passages, passage_words)
    select ${video.id}, ${video.organizationId}, coalesce((select sum(occurrences) from counted), 0)::int,
      count(*)::int, coalesce(sum(word_count), 0)::int
    from transcript_chunks where video_id = ${video.id}
    having count(*) > 0`);
}

/**
 * CTEs ending in `meeting_likelihood (video_id, value)`: for each video of `videos` (a relation
 * with a `video_id` column) or, without it, each video of the organizations that says one of the
 * question's words (`words`: a relation of `lexeme`, `factor`), the question's query likelihood — each word
 * drawn from the meeting's transcript, smoothed toward the organizations' rate, over that rate,
 * in natural log and weighed by its factor. Higher is likelier; only the order is meant to be
 * used. Words the organizations never say are left out. Each word's counts are one range of the
 * (organization, lexeme) index, read once for its organization-wide rate and every meeting's
 * count: log((n + μp) / (N + μ) / p) is log(1 + n / μp) + log(μ / (N + μ)), so a meeting that
 * never says a word needs no row for it.
 */
export function meetingLikelihood({
  words,
  organizations,
  videos,
}: {
  words: SQL;
  organizations: SQL;
  videos?: SQL;
}): SQL {
  const smoothing = sql.raw(String(SMOOTHING_WORDS));
  return sql`likelihood_counts as materialized (
      select t.video_id, w.lexeme, w.factor, t.occurrences::float8 as occurrences
      from (select lexeme, max(factor) as factor from ${words} as listed group by lexeme) w
      join video_terms t on t.organization_id = any(${organizations}) and t.lexeme = w.lexeme and t.occurrences > 0
    ),
    likelihood_words as materialized (
      select lexeme, factor, sum(occurrences) as occurrences from likelihood_counts group by lexeme, factor
    ),
    likelihood_total as materialized (
      select greatest(sum(occurrences), 1)::float8 as n from video_term_totals
      where organization_id = any(${organizations})
    ),
    meeting_likelihood as materialized (
      select m.video_id,
        coalesce(sum(c.factor * ln(1 + c.occurrences * total.n / (${smoothing} * w.occurrences))), 0)
          + (select sum(factor) from likelihood_words)
            * ln(${smoothing}::float8 / (coalesce(max(length.occurrences), 0) + ${smoothing})) as value
      from (${videos ? sql`select distinct listed.video_id from ${videos} as listed` : sql`select distinct video_id from likelihood_counts`}) m
      cross join likelihood_total total
      left join video_term_totals length on length.video_id = m.video_id
      left join (likelihood_counts c join likelihood_words w on w.lexeme = c.lexeme) on c.video_id = m.video_id
      group by m.video_id
    )`;
}
