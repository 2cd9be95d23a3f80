import { type SQL, sql } from 'drizzle-orm';
import { CHUNK_MAX_WORDS, CHUNK_MIN_WORDS, VECTOR_IN_MEMORY } from './chunks.ts';
import { RRF_K } from './fusion.ts';
import { FRAMING_WEIGHT, FRAMING_WORDS } from './question-terms.ts';
import { questionLexemes, questionQuery } from './stemming.ts';
import { meetingLikelihood, organizationPassages, organizationPassagesHolding } from './video-terms.ts';

/**
 * Best-match ranking of transcripts for `GET /search`, as CTEs for the search query (which
 * defines `q`, the match query). Each term of the query weighs its BM25 idf over the
 * organizations' passages, so that a passage holding more of the rarer words ranks first (a word
 * the counts stored with each transcript show to be common is counted from them, not read). A
 * first pass reads only the index: passages by the summed idf of the distinctive words they hold, at
 * most `CANDIDATES` of them — or, when every word is common, the passages holding all of them in
 * the meetings likeliest to be about them (`LIKELIEST_VIDEOS`); those are then scored exactly
 * (each word's idf times PostgreSQL's saturating `ts_rank` of it). Videos are ranked by their
 * best passage and, fused with that by Reciprocal Rank Fusion, by how likely the question is to be
 * about the meeting as a whole (video-terms.ts). A video's transcript score is its fused score,
 * scaled so that the first video's is the strongest passage's `s / (s + 2)`: a weak match scores
 * low, and a title match can outweigh it. A plain word that frames a question ("discuss",
 * "think") weighs lightly, as in QA retrieval (question-terms.ts). Ends in
 * `video_hits (video_id, score, best_chunk_ids)` and `term_weights (lexeme-free: ord, idf)`.
 */

/** Passages scored exactly, at most: the pages people read come from far fewer. */
export const CANDIDATES = 300;
/**
 * A word in more passages than this share is common: it picks no candidates while a rarer one
 * can, and its passages are read no further — what a common word costs a search. A tenth, not
 * the fifth QA's idf reads to (stretch-retrieval.ts): at 1,000 meetings it halved the slowest
 * queries' SQL, and search on QMSum did no worse (docs/search.md).
 */
const COMMON_SHARE = 0.1;
/** BM25's length normalisation, mild: passages are cut to 150–300 words, so lengths differ little. */
const LENGTH_WEIGHT = sql.raw('0.5');
/** A passage's typical length: halfway between the shortest and longest a cut makes. */
const TYPICAL_WORDS = sql.raw(String((CHUNK_MIN_WORDS + CHUNK_MAX_WORDS) / 2));
/** A term's passages read, at least, so that a small library's every passage can be a candidate. */
const MIN_READ = 1_000;
/** The passage score at which the best video's transcript score is one half (it tends to 1). */
const TRANSCRIPT_SCORE_HALF = 2;
/** Reciprocal Rank Fusion's constant, as in vector fusion. */
const RRF = sql.raw(String(RRF_K));
/**
 * Meetings whose passages holding every word are the candidates when every word is common; fewer
 * such passages than this and the passages holding most of the words fill in.
 */
const LIKELIEST_VIDEOS = 30;
/** Passages kept per video for its moments. */
const BEST_PER_VIDEO = 3;

export type RankingScope = {
  organizations: SQL;
  /** Conditions on the passage's video (alias `v`): filters, soft deletion. */
  videoCondition: SQL;
  /**
   * Conditions on the passage (alias `c`, with `q` the match query): who speaks the words, and
   * the query's required and excluded terms when it has any.
   */
  chunkCondition: SQL;
};

/**
 * A term's passages in the organizations as read from the index, up to `read_limit`: how many
 * and which (arrays of passage and video ids), for a lateral join where `query` is the term's.
 */
const termPassages = (query: SQL, scope: RankingScope) => sql`
  select count(*)::float8 as n, array_agg(c.id) as ids, array_agg(c.video_id) as video_ids
  from (
    select c.id, c.video_id from transcript_chunks c
    where c.organization_id = any(${scope.organizations}) and c.search @@ ${query}
    limit (select n from read_limit)
  ) c`;

export function transcriptRanking(
  terms: Array<{ query: SQL; text: string; framing: boolean }>,
  scope: RankingScope,
): SQL {
  const values =
    terms.length > 0
      ? sql.join(
          terms.map((term, at) => sql`(${at}, ${term.query}, ${term.text}, ${term.framing}::boolean)`),
          sql`, `,
        )
      : sql`(0, ''::tsquery, '', false)`;
  return sql`
    framing_words as materialized (select to_tsvector('english', ${FRAMING_WORDS}) as words),
    passage_total as materialized (select ${organizationPassages(scope.organizations)} as n),
    read_limit as materialized (
      select greatest(ceil(n * ${sql.raw(String(COMMON_SHARE))}), ${MIN_READ})::float8 as n from passage_total
    ),
    -- A term "fills" when it is one word whose stem the counts stored with each transcript put at or
    -- over the read limit. Its read would fill the limit (the index also holds each passage's
    -- words as written, and a prefix matches at least its stem's passages), so it is not read: a
    -- common word was most of a search's reading, 6 ms each at 1,000 meetings.
    terms as materialized (
      select ord, query, text,
        case when may_frame and numnode(query) = 1 and (select words from framing_words) @@ query
          then ${sql.raw(String(FRAMING_WEIGHT))} else 1 end as factor,
        numnode(${questionQuery(sql`text`)}) = 1
          and ${organizationPassagesHolding(scope.organizations, sql`(${questionLexemes(sql`text`)})[1]`)}
            >= (select n from read_limit) as fills
      from (values ${values}) as t(ord, query, text, may_frame) where numnode(query) > 0
    ),
    live_videos as materialized (
      select v.id from videos v where v.organization_id = any(${scope.organizations}) and ${scope.videoCondition}
    ),
    -- Each term's passages, read once from the index: how many there are (up to the share where
    -- it is common) and which, as arrays, so that a common word's passages are counted without
    -- being joined or summed. A term that fills the read is counted at the limit, and its passages
    -- are listed only if every term is common and too few passages hold them all.
    term_reads as materialized (
      select t.ord, read.n, read.ids, read.video_ids
      from terms t cross join lateral (${termPassages(sql`t.query`, scope)}) read
      where not t.fills
      union all
      select ord, (select n from read_limit), null, null from terms where fills
    ),
    term_weights as materialized (
      select t.ord, t.query, r.n >= ceil(p.n * ${sql.raw(String(COMMON_SHARE))}) as common,
        t.factor * ln(1 + (p.n - least(r.n, p.n) + 0.5) / (least(r.n, p.n) + 0.5)) as idf
      from terms t cross join passage_total p
      join term_reads r on r.ord = t.ord
      where r.n > 0
    ),
    -- Whether every term is common (no word tells passages apart), and the idf of all of them.
    term_mix as materialized (
      select coalesce(bool_and(common), false) as all_common, sum(idf) as idf from term_weights
    ),
    ${meetingLikelihood({
      words: sql`(select l.lexeme, t.factor
        from terms t cross join unnest(${questionLexemes(sql`t.text`)}) as l(lexeme))`,
      organizations: scope.organizations,
    })},
    -- When every term is common, a passage holding all of them holds the most idf there is, and
    -- the meetings likeliest to be about the words are where to look for those: the index's
    -- intersection of the words within them, not the first passages it lists (the oldest).
    likeliest_videos as materialized (
      select l.id from meeting_likelihood m join live_videos l on l.id = m.video_id
      where (select all_common from term_mix)
      order by m.value desc, l.id
      limit ${LIKELIEST_VIDEOS}
    ),
    holding_all as materialized (
      select id from (
        select c.id, row_number() over (partition by c.video_id order by c.index) as in_video
        from transcript_chunks c
        where c.video_id = any(array(select id from likeliest_videos))
          and c.search @@ (select string_agg('(' || query::text || ')', ' & ')::tsquery from terms)
      ) held
      where in_video <= ${CANDIDATES / LIKELIEST_VIDEOS}
    ),
    candidates as materialized (
      select id, max(rough) as rough from (
        select id, (select idf from term_mix) as rough, true as likeliest from holding_all
        union all
        select m.id, sum(w.idf), false
        from term_weights w
        join (
          select ord, ids, video_ids from term_reads where ids is not null
          union all
          select t.ord, read.ids, read.video_ids
          from terms t cross join lateral (${termPassages(sql`t.query`, scope)}) read
          where t.fills and (select all_common from term_mix)
        ) r on r.ord = w.ord
        cross join unnest(r.ids, r.video_ids) as m(id, video_id)
        join live_videos l on l.id = m.video_id
        where (select count(*) from holding_all) < ${LIKELIEST_VIDEOS}
          and (not w.common or (select all_common from term_mix))
        group by m.id
      ) found
      group by id
      order by bool_or(likeliest) desc, rough desc, id
      limit ${CANDIDATES}
    ),
    chunk_scores as (
      select c.id, c.video_id, c.index,
        held.value / (1 - ${LENGTH_WEIGHT} + ${LENGTH_WEIGHT} * c.word_count / ${TYPICAL_WORDS}) as score
      from (
        select c.id, c.video_id, c.index, c.word_count, c.first_segment_index, c.last_segment_index,
          ${VECTOR_IN_MEMORY}
        from candidates k join transcript_chunks c on c.id = k.id
        offset 0
      ) c
      cross join q
      cross join lateral (
        select sum(w.idf * (1 + ts_rank(c.search, w.query))) as value from term_weights w where c.search @@ w.query
      ) held
      where ${scope.chunkCondition}
    ),
    passage_hits as materialized (
      select video_id, max(score) as score,
        (array_agg(id order by score desc, index))[1:${BEST_PER_VIDEO}] as best_chunk_ids
      from chunk_scores group by video_id
    ),
    video_hits as (
      select p.video_id, p.best_chunk_ids,
        ((1.0 / (${RRF} + row_number() over (order by p.score desc, p.video_id))
          + 1.0 / (${RRF} + row_number() over (order by l.value desc nulls last, p.score desc, p.video_id)))
          * (${RRF} + 1) / 2
          * max(p.score / (p.score + ${sql.raw(String(TRANSCRIPT_SCORE_HALF))})) over ())::float8 as score
      from passage_hits p left join meeting_likelihood l on l.video_id = p.video_id
    )`;
}
